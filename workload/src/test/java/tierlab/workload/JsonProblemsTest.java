package tierlab.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** Jackson's messages (as Jackson 2.x words them) turned into the reason in words. */
class JsonProblemsTest {

    @Test
    void nonNumericNumbersCoercionsAndSourceTailsBecomeWords() {
        assertEquals("'NaN' is not a number JSON allows (write a decimal number such as 1.5)", JsonProblems.words(
                "Non-standard token 'NaN': enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to allow"));
        assertEquals("wrong type: found empty text", JsonProblems.words("Cannot coerce empty String (\"\") to `java.lang.Integer`"
                + " value (but could if coercion was enabled using `CoercionConfig`)"));
        assertEquals("found the number 5", JsonProblems.found(
                "Cannot coerce Integer value (5) to `java.lang.String` value (but could if coercion was enabled using `CoercionConfig`)"));
        assertEquals("found text", JsonProblems.found(
                "Cannot deserialize value of type `java.util.ArrayList<java.lang.Long>` from String value (token `JsonToken.VALUE_STRING`)"));
        assertEquals("found the text 'four'", JsonProblems.found(
                "Cannot deserialize value of type `int` from String \"four\": not a valid `int` value"));
        assertEquals("unexpected character '\"': was expecting comma to separate Object entries", JsonProblems.words(
                "Unexpected character ('\"' (code 34)): was expecting comma to separate Object entries\n at [Source: REDACTED"
                        + " (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 62]"));
        assertEquals("'probe' is not a JSON value (text needs double quotes)", JsonProblems.words(
                "Unrecognized token 'probe': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')"));
        assertNull(JsonProblems.found("Unexpected end-of-input"));
        assertEquals("Unexpected end-of-input", JsonProblems.words("Unexpected end-of-input [Source: REDACTED; line: 1]"));
    }
}

package tierlab.workload;

import tierlab.model.Registry;

/**
 * Trace formats added at start-up: a {@link java.util.ServiceLoader} provider, named in a
 * {@code META-INF/services/tierlab.workload.TraceFormatProvider} file on the class path, whose entries
 * (a format's name and its {@link TraceFormats.TraceFormat}) {@link TraceFormats#FORMATS} lists after
 * the built-in formats.
 */
public interface TraceFormatProvider extends Registry.Provider<TraceFormats.TraceFormat> {
}

package tierlab.experiments;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * A table declared once as its columns, each a name, a type and how a row gives its cell, then filled
 * from a list of rows: the header order is the declaration order, and a column's name and its value
 * stand on one line instead of a column variable, an append in a loop and a place in
 * {@code Table.create}. A boxed getter that returns null leaves the cell missing (empty in CSV).
 *
 * @param <R> what one row of the table is made from
 */
public final class ColumnTable<R> {

    private final String name;
    private final List<Spec<R>> columns = new ArrayList<>();

    private record Spec<R>(Function<String, Column<?>> create, Filler<R> fill, String name) {}

    @FunctionalInterface
    private interface Filler<R> {
        void append(Column<?> column, R row);
    }

    private ColumnTable(String name) {
        this.name = name;
    }

    public static <R> ColumnTable<R> named(String name) {
        return new ColumnTable<>(name);
    }

    public ColumnTable<R> text(String column, Function<R, String> cell) {
        return add(column, StringColumn::create, (c, row) -> ((StringColumn) c).append(cell.apply(row)));
    }

    public ColumnTable<R> decimal(String column, ToDoubleFunction<R> cell) {
        return add(column, DoubleColumn::create, (c, row) -> ((DoubleColumn) c).append(cell.applyAsDouble(row)));
    }

    public ColumnTable<R> integer(String column, ToIntFunction<R> cell) {
        return add(column, IntColumn::create, (c, row) -> ((IntColumn) c).append(cell.applyAsInt(row)));
    }

    public ColumnTable<R> whole(String column, ToLongFunction<R> cell) {
        return add(column, LongColumn::create, (c, row) -> ((LongColumn) c).append(cell.applyAsLong(row)));
    }

    /** A whole-number column whose cell is missing where {@code cell} gives null. */
    public ColumnTable<R> wholeOrMissing(String column, Function<R, Long> cell) {
        return add(column, LongColumn::create, (c, row) -> {
            Long value = cell.apply(row);
            if (value == null) {
                ((LongColumn) c).appendMissing();
            } else {
                ((LongColumn) c).append(value);
            }
        });
    }

    private ColumnTable<R> add(String column, Function<String, Column<?>> create, Filler<R> fill) {
        columns.add(new Spec<>(create, fill, column));
        return this;
    }

    /** The table of {@code rows}, one row each, in order. */
    public Table of(Iterable<R> rows) {
        List<Column<?>> made = new ArrayList<>();
        for (Spec<R> spec : columns) {
            made.add(spec.create().apply(spec.name()));
        }
        for (R row : rows) {
            for (int i = 0; i < columns.size(); i++) {
                columns.get(i).fill().append(made.get(i), row);
            }
        }
        return Table.create(name, made.toArray(Column<?>[]::new));
    }
}

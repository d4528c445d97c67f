package io.pgharvest.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class RowValuesTest {

    private final RowValues.Columns columns = new RowValues.Columns(List.of("b", "a", "c"));

    @Test
    void behavesLikeAnOrderedMapThatHoldsNulls() {
        var row = new RowValues(columns, new Object[] {1L, null, "x"});
        var expected = new LinkedHashMap<String, Object>();
        expected.put("b", 1L);
        expected.put("a", null);
        expected.put("c", "x");
        assertThat(row).isEqualTo(expected).hasSameHashCodeAs(expected);
        assertThat(row.keySet()).containsExactly("b", "a", "c");
        assertThat(row.get("c")).isEqualTo("x");
        assertThat(row.containsKey("a")).isTrue();
        assertThat(row.get("missing")).isNull();
        var walked = new ArrayList<String>();
        row.forEach((name, value) -> walked.add(name + "=" + value));
        assertThat(walked).containsExactly("b=1", "a=null", "c=x");
    }

    @Test
    void aRowKeepsItsValuesWithoutACopyAndCannotBeChanged() {
        var values = new RowValues(columns, new Object[] {1L, 2L, 3L});
        var row = new Measurement.Row(values, null);
        assertThat(row.values()).isSameAs(values);
        assertThatThrownBy(() -> row.values().put("d", 4L)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void repeatedColumnNamesAndWrongWidthsAreRefused() {
        assertThatThrownBy(() -> new RowValues.Columns(List.of("a", "a"))).hasMessageContaining("twice");
        assertThatThrownBy(() -> new RowValues(columns, new Object[2])).hasMessageContaining("3 columns");
    }
}

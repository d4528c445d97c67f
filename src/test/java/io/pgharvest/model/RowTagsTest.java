package io.pgharvest.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class RowTagsTest {

    @Test
    void behavesLikeAnImmutableMapInTheGivenOrder() {
        var tags = RowTags.of(new String[] {"schema", "table", "unused"}, new String[] {"public", "t1", "x"}, 2);
        assertThat(tags).isEqualTo(Map.of("table", "t1", "schema", "public"))
                .hasSameHashCodeAs(Map.of("table", "t1", "schema", "public"));
        assertThat(Map.of("table", "t1", "schema", "public")).isEqualTo(tags);
        assertThat(tags.keySet()).containsExactly("schema", "table");
        assertThat(tags.get("table")).isEqualTo("t1");
        assertThat(tags.get("unused")).isNull();
        assertThat(tags.containsKey("schema")).isTrue();
        assertThat(tags.name(1)).isEqualTo("table");
        assertThat(tags.value(0)).isEqualTo("public");
        var walked = new ArrayList<String>();
        tags.forEach((name, value) -> walked.add(name + "=" + value));
        assertThat(walked).containsExactly("schema=public", "table=t1");
        assertThat(tags.toString()).isEqualTo("{schema=public, table=t1}");
        assertThatThrownBy(() -> tags.put("a", "b")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aRepeatedNameKeepsItsLastValueAndNullsAreRefused() {
        var tags = RowTags.of(new String[] {"a", "b", "a"}, new String[] {"1", "2", "3"}, 3);
        assertThat(tags).containsExactly(Map.entry("a", "3"), Map.entry("b", "2"));
        assertThat(tags.size()).isEqualTo(2);
        assertThatThrownBy(() -> RowTags.of(new String[] {"a"}, new String[] {null}, 1))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("value of tag a");
    }

    @Test
    void rowsOfOneResultShareTheirNamesArray() {
        String[] names = {"schema", "table"};
        var first = RowTags.sharingNames(names, new String[] {"public", "t1"});
        var second = RowTags.sharingNames(names, new String[] {"public", "t2"});
        assertThat(first).isEqualTo(Map.of("schema", "public", "table", "t1"));
        assertThat(second.get("table")).isEqualTo("t2");
        assertThat(RowTags.sharingNames(new String[0], new String[0])).isSameAs(RowTags.EMPTY);
        assertThatThrownBy(() -> RowTags.sharingNames(names, new String[] {"public"}))
                .hasMessageContaining("1 values for 2 tag names");
        assertThatThrownBy(() -> RowTags.sharingNames(names, new String[] {"public", null}))
                .hasMessageContaining("value of tag table");
    }

    @Test
    void aRowKeepsRowTagsAsTheyAreAndConvertsOtherMaps() {
        var tags = RowTags.of(new String[] {"datname"}, new String[] {"db1"}, 1);
        assertThat(new Measurement.Row(Map.of("v", 1), tags).tags()).isSameAs(tags);
        var plain = new LinkedHashMap<String, String>();
        plain.put("z", "1");
        plain.put("y", "2");
        Map<String, String> converted = new Measurement.Row(Map.of("v", 1), plain).tags();
        assertThat(converted).isInstanceOf(RowTags.class).isEqualTo(plain);
        assertThat(converted.keySet()).containsExactly("z", "y");
        plain.put("x", "3"); // the row's copy does not follow
        assertThat(converted).hasSize(2);
        assertThat(new Measurement.Row(Map.of("v", 1), null).tags()).isSameAs(RowTags.EMPTY);
    }
}

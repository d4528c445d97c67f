package io.pgharvest.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.store.WriteCondition.StaleIndexException;
import io.pgharvest.model.StoreTable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The contract's check-and-set, on its own: what every store implementation runs under its write lock. */
@Tag("fast")
class WriteConditionTest {

    @Test
    void aConditionalWriteOnAMovedIndexIsRefusedNamingTheExpectedAndTheCurrentIndex() {
        WriteCondition read = WriteCondition.modifyIndex(7);

        read.check(StoreTable.SOURCES, "db1", 7);
        assertThatThrownBy(() -> read.check(StoreTable.SOURCES, "db1", 8))
                .isInstanceOfSatisfying(StaleIndexException.class, e -> {
                    assertThat(e.expected()).isEqualTo(7);
                    assertThat(e.current()).isEqualTo(8);
                })
                .hasMessageContaining("db1");
    }

    @Test
    void anUnconditionalWriteAcceptsAnyIndexAndANegativeExpectationIsRefused() {
        WriteCondition.any().check(StoreTable.METRICS, "m", 42);

        assertThat(WriteCondition.any()).hasToString("any");
        assertThat(WriteCondition.modifyIndex(0)).hasToString("cas=0");
        assertThatThrownBy(() -> WriteCondition.modifyIndex(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}

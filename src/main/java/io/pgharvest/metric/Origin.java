package io.pgharvest.metric;

import io.pgharvest.store.ItemOrigin;
import java.util.Optional;

/** The {@code builtIn} and {@code overridden} flags of metric and preset responses. */
record Origin(boolean builtIn, boolean overridden) {

    static Origin of(Optional<ItemOrigin> origin) {
        ItemOrigin value = origin.orElse(ItemOrigin.USER);
        return new Origin(value.builtIn(), value == ItemOrigin.OVERRIDE);
    }
}

package io.pgharvest.api;

import io.pgharvest.model.FieldProblem;
import io.pgharvest.store.WriteCondition;
import java.util.List;

/**
 * The {@code ?cas=N} parameter of a replacing or deleting write (Consul's check-and-set): the
 * {@code modifyIndex} the writer read; the write is refused with 409 {@code stale-index} when the
 * item has changed since. {@code cas=0} writes only if the item does not exist yet. Without the
 * parameter a write is unconditional.
 */
public final class CheckAndSet {

    public static final String PARAM_DESCRIPTION = "Check-and-set: the modifyIndex you read; the write is refused"
            + " (409 stale-index, with the current modifyIndex) if the item changed since. 0: only if it does not exist.";

    private CheckAndSet() {
    }

    /**
     * The condition the raw parameter asks for.
     *
     * @throws InvalidParameterException naming {@code cas} when it is not a whole number of at least 0
     */
    public static WriteCondition parse(String cas) {
        if (cas == null) {
            return WriteCondition.any();
        }
        try {
            long index = Long.parseLong(cas.trim());
            if (index >= 0) {
                return WriteCondition.modifyIndex(index);
            }
        } catch (NumberFormatException e) {
            // refused below, like a negative number
        }
        throw new InvalidParameterException(List.of(new FieldProblem("cas",
                "must be a whole number of at least 0: the modifyIndex of the item as you read it")));
    }
}

package io.pgharvest.model;

import java.util.Objects;

/**
 * This pgharvest instance's name in a fleet (several instances on one configuration database):
 * {@code pgharvest.fleet.instance-id}, or a generated one. Absent with a single instance.
 */
public record FleetInstance(String id) {

    public FleetInstance {
        Objects.requireNonNull(id, "id");
    }
}

package io.pgharvest.model;

/** A Patroni source names its DCS; the members' addresses come from there. */
final class DcsKindRules implements KindRules {

    @Override
    public boolean readsDcsAddress() {
        return true;
    }
}

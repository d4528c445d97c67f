package io.pgharvest.model;

/** Continuous discovery: a server, and name patterns for the databases it collects. */
final class DiscoveryKindRules implements KindRules {

    @Override
    public boolean selectsDatabases() {
        return true;
    }
}

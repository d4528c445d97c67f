package io.pgharvest.architecture.violations.sink;

/** Violates the sink core rule: the core names a kind of sink. */
public final class SinkCore {

    public void write() {
        new io.pgharvest.architecture.violations.sink.postgres.PostgresSinkPlugin();
    }
}

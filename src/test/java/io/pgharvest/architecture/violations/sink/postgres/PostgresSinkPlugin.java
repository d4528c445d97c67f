package io.pgharvest.architecture.violations.sink.postgres;

/** A kind of sink. */
public final class PostgresSinkPlugin {
}

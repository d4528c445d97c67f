package io.pgharvest.architecture.violations.sink;

/** A compliant sink class. */
public interface Sink {

    void write();
}

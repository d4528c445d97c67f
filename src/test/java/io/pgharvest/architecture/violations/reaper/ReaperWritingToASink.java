package io.pgharvest.architecture.violations.reaper;

/** Violates the reaper/sink rule: the engine calls a sink. */
public final class ReaperWritingToASink {

    public void publish(io.pgharvest.architecture.violations.sink.SinkCore sink) {
        sink.write();
    }
}

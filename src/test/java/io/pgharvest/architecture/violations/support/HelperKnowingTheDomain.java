package io.pgharvest.architecture.violations.support;

/** Violates the support rule by importing the kernel, and nothing else. */
public final class HelperKnowingTheDomain {

    public String name(io.pgharvest.architecture.violations.model.KernelValue value) {
        return value.name();
    }
}

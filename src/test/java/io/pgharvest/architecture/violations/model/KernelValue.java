package io.pgharvest.architecture.violations.model;

/** A kernel value that other fixtures import. */
public record KernelValue(String name) {
}

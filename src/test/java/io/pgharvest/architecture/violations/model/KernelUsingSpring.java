package io.pgharvest.architecture.violations.model;

/** Violates the kernel rule: the kernel imports a framework. */
public final class KernelUsingSpring {

    public boolean blank(String text) {
        return !org.springframework.util.StringUtils.hasText(text);
    }
}

package io.pgharvest.architecture.violations.support;

/** Violates the support rule by importing a framework, and nothing else. */
public final class HelperUsingSpring {

    public boolean blank(String text) {
        return !org.springframework.util.StringUtils.hasText(text);
    }
}

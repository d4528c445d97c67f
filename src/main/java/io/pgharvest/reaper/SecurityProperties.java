package io.pgharvest.reaper;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How far pgharvest trusts the roles its sources log in as (docs/security.md).
 *
 * @param allowSuperuserSources open sessions whose login role is a superuser. Unsafe: a
 *     superuser can undo from inside a SELECT every boundary pgharvest sets (switch role, read
 *     server files, signal other backends, reset statistics), so with the API token anyone
 *     could. Off by default: such a source is refused when its session opens (its status shows
 *     the refusal) and its connection test fails with the same reason.
 */
@ConfigurationProperties("pgharvest.security")
public record SecurityProperties(@DefaultValue("false") boolean allowSuperuserSources) {
}

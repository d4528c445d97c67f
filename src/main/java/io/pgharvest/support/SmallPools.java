package io.pgharvest.support;

import com.zaxxer.hikari.HikariConfig;
import io.pgharvest.support.wire.OwnSessions;
import java.util.Properties;

/**
 * The settings every small connection pool of pgharvest's own databases shares (the sink, the
 * configuration store, the fleet's leases): a few connections, none kept idle for long, short
 * waits so a missing database is reported rather than waited for, and a pool that starts even
 * while its database is down (it reconnects when asked). Every connection reads through the
 * notice bound of pgharvest's own sessions ({@link OwnSessions}): the owner of one of these
 * databases cannot grow pgharvest's heap with notices (a trigger raising them during a COPY).
 */
public final class SmallPools {

    private SmallPools() {
    }

    /**
     * @param maxSize the most connections the pool's users need at once
     * @param initSql run on every new connection (timeouts, search path)
     */
    public static HikariConfig config(String poolName, String jdbcUrl, Properties properties, int maxSize,
            String initSql) {
        var config = new HikariConfig();
        config.setPoolName(poolName);
        config.setJdbcUrl(jdbcUrl);
        var bounded = new Properties();
        bounded.putAll(properties);
        config.setDataSourceProperties(OwnSessions.bounded(bounded));
        config.setMaximumPoolSize(maxSize);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(5_000);
        config.setValidationTimeout(3_000);
        config.setIdleTimeout(60_000);
        config.setInitializationFailTimeout(-1);
        config.setConnectionInitSql(initSql);
        return config;
    }
}

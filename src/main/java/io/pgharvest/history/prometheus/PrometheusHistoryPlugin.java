package io.pgharvest.history.prometheus;

import io.pgharvest.history.HistoryReader;
import io.pgharvest.history.HistoryReaderPlugin;
import io.pgharvest.support.plugin.PluginKind;
import io.pgharvest.support.plugin.PluginOption;
import java.util.List;

/**
 * The {@code prometheus} kind of history reader: the series the {@code prometheus-remote-write}
 * sink writes, read through the Prometheus HTTP query API. Never derived from a sink: the query URL
 * of a remote-write receiver is not its write URL (Mimir, Thanos, a VictoriaMetrics cluster).
 */
public final class PrometheusHistoryPlugin implements HistoryReaderPlugin<PrometheusHistorySettings> {

    private static final PluginKind<PrometheusHistorySettings> KIND = new PluginKind<>(FAMILY, "prometheus",
            "A store of the Prometheus HTTP query API (Prometheus, VictoriaMetrics, Mimir, Thanos) holding what the "
                    + "prometheus-remote-write sink wrote, read through query_range", PrometheusHistorySettings.class,
            List.of(
                new PluginOption("url", "required", "The query API's base, `http(s)://host:port[/prefix]` (e.g. "
                        + "`http://prometheus:9090`, `http://vmselect:8481/select/0/prometheus`); the reader adds "
                        + "`/api/v1/query_range`. Credentials, a query string or a fragment in it are refused"),
                new PluginOption("user", "none", "Basic authentication user (with `password`)"),
                new PluginOption("password", "none", "Basic authentication password (with `user`). A secret: never logged"),
                new PluginOption("bearer-token", "none", "Sent as `Authorization: Bearer …`; excludes `user`/`password`."
                        + " A secret: never logged"),
                new PluginOption("headers", "none", "Extra headers sent with every query, a map, e.g. "
                        + "`X-Scope-OrgID` naming a Mimir or Thanos tenant. `Authorization`, `Content-Type`, `Accept` "
                        + "and the headers the HTTP client owns are refused. Values are secrets: never logged"),
                new PluginOption("request-timeout", "`10s`", "The longest one query waits for the store, 100ms to 5m"),
                new PluginOption("retention", "`0`", "How far back the store keeps samples: a range starting earlier "
                        + "is refused; `0` reads any range")));

    @Override
    public PluginKind<PrometheusHistorySettings> kind() {
        return KIND;
    }

    @Override
    public HistoryReader create(String name, PrometheusHistorySettings settings) {
        return new PrometheusHistoryReader(name, QueryApi.of(settings), settings.retention());
    }
}

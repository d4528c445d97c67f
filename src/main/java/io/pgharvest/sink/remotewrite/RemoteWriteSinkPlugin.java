package io.pgharvest.sink.remotewrite;

import io.pgharvest.sink.SeriesMapping;
import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkPlugin;
import io.pgharvest.sink.SinkSetup;
import io.pgharvest.support.plugin.PluginKind;
import io.pgharvest.support.plugin.PluginOption;
import java.util.List;

/** The {@code prometheus-remote-write} kind of sink. */
public final class RemoteWriteSinkPlugin implements SinkPlugin<RemoteWriteSinkProperties> {

    private static final PluginKind<RemoteWriteSinkProperties> KIND = new PluginKind<>(FAMILY, "prometheus-remote-write",
            "Every sample with its collection time, sent to a receiver of the Prometheus remote-write protocol "
                    + "(Prometheus, VictoriaMetrics, Mimir, Thanos, Cortex)",
            RemoteWriteSinkProperties.class, List.of(
                new PluginOption("url", "required", "The receiver's write endpoint, `http://` or `https://`: Prometheus "
                        + "`/api/v1/write` (started with `--web.enable-remote-write-receiver`), VictoriaMetrics "
                        + "`/api/v1/write`, Mimir/Cortex `/api/v1/push`, Thanos Receive `/api/v1/receive`. Credentials "
                        + "in the URL are refused; a query string is allowed and never logged"),
                new PluginOption("user", "none", "Basic authentication user (with `password`)"),
                new PluginOption("password", "none", "Basic authentication password (with `user`). A secret: never logged"),
                new PluginOption("bearer-token", "none", "Sent as `Authorization: Bearer …`; excludes `user`/`password`. "
                        + "A secret: never logged"),
                new PluginOption("headers", "none", "Extra request headers, a map, e.g. `X-Scope-OrgID` for a tenant. The "
                        + "protocol's headers, `Authorization`, `Host` and the other headers the HTTP client owns are "
                        + "refused. Values are never logged"),
                new PluginOption("tls-ca-file", "the JDK's trust store", "PEM file of the certificate authorities an "
                        + "`https` receiver's certificate must chain to; needs an `https://` url. There is no option to "
                        + "skip verification"),
                new PluginOption("connect-timeout", "`5s`", "Longest wait for a connection (TCP and TLS)"),
                new PluginOption("request-timeout", "`30s`", "Longest wait for the receiver's answer to one request")));

    @Override
    public PluginKind<RemoteWriteSinkProperties> kind() {
        return KIND;
    }

    @Override
    public Sink create(SinkSetup<RemoteWriteSinkProperties> setup) {
        var mapping = new SeriesMapping(setup.catalog(), setup.instanceId());
        return new RemoteWriteSink(setup.name(), ReceiverEndpoint.of(setup.property(), setup.settings()), mapping,
                setup.clock(), setup.meters());
    }
}

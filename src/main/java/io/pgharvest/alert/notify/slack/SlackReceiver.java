package io.pgharvest.alert.notify.slack;

import io.pgharvest.alert.AlertTransition;
import io.pgharvest.alert.notify.DeliveryException;
import io.pgharvest.alert.notify.HttpDelivery;
import io.pgharvest.alert.notify.NotificationText;
import io.pgharvest.alert.notify.Receiver;
import io.pgharvest.alert.notify.UrlChecks;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * Posts each notification in Slack's incoming-webhook format: {@code text} with Slack's control
 * characters escaped ({@code &amp; &lt; &gt;}, so no value makes a link, a mention or
 * {@code <!channel>}) and {@code mrkdwn} off (no value turns bold or code).
 */
final class SlackReceiver implements Receiver {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final URI url;
    private final HttpDelivery http = new HttpDelivery();

    SlackReceiver(SlackSettings settings) {
        this.url = UrlChecks.parse(settings.url());
    }

    @Override
    public void send(AlertTransition transition) throws DeliveryException {
        var text = new StringBuilder(escape(NotificationText.title(transition)));
        for (String line : NotificationText.body(transition)) {
            text.append('\n').append(escape(line));
        }
        var body = new LinkedHashMap<String, Object>();
        body.put("text", text.toString());
        body.put("mrkdwn", false);
        http.postJson(url, "url", JSON.writeValueAsBytes(body), Map.of());
    }

    /** Slack's three control characters, as its message formatting guide asks. */
    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    @Override
    public void close() {
        http.close();
    }
}

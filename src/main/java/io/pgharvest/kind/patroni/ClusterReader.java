package io.pgharvest.kind.patroni;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Finds the members of the Patroni clusters a {@link DcsAddress} names. Patroni keeps one key
 * per member, {@code /namespace/scope/members/name}, whose JSON value holds {@code conn_url},
 * {@code api_url}, {@code role} and {@code state}; the cluster's other keys (leader, config,
 * status, history, ...) are not needed here.
 */
final class ClusterReader {

    private static final Logger log = LoggerFactory.getLogger(ClusterReader.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final EtcdReader etcd;

    ClusterReader(EtcdReader etcd) {
        this.etcd = etcd;
    }

    /** The members under the address's namespace (and scope, if it names one), in key order. */
    List<PatroniMember> members(DcsAddress address) throws IOException {
        var members = new ArrayList<PatroniMember>();
        for (EtcdReader.KeyValue kv : etcd.readPrefix(address, address.keyPrefix())) {
            // "/namespace/scope/members/name" -> ["namespace", "scope", "members", "name"]
            String[] parts = kv.key().substring(1).split("/", -1);
            if (parts.length != 4 || !parts[0].equals(address.namespace()) || !parts[2].equals("members")
                    || parts[3].isEmpty()) {
                continue;
            }
            try {
                JsonNode value = JSON.readTree(kv.value());
                members.add(new PatroniMember(parts[1], parts[3], text(value, "conn_url"), text(value, "api_url"),
                        text(value, "role"), text(value, "state")));
            } catch (JacksonException e) {
                log.warn("Patroni member key {} does not hold JSON; skipped", kv.key());
            }
        }
        return members;
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value.asString();
    }
}

package io.pgharvest.nativemetric;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.util.Collections;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Which servers count as running on this machine: decided from the address the server reports. */
@Tag("fast")
class ServerLocalityTest {

    private final ServerLocality system = ServerLocality.system();

    @Test
    void unixSocketsAndLoopbackAddressesAreLocal() {
        assertThat(system.isOnThisHost(":0")).isTrue(); // inet_server_addr() is null on a Unix socket
        assertThat(system.isOnThisHost("127.0.0.1:5432")).isTrue();
        assertThat(system.isOnThisHost("::1:5432")).isTrue();
    }

    @Test
    void anAddressOfOneOfThisMachinesInterfacesIsLocal() throws Exception {
        InetAddress own = Collections.list(NetworkInterface.getNetworkInterfaces()).stream()
                .flatMap(i -> Collections.list(i.getInetAddresses()).stream())
                .filter(a -> !a.isLoopbackAddress()).findFirst().orElseThrow();

        assertThat(system.isOnThisHost(own.getHostAddress() + ":5432")).as(own.toString()).isTrue();
    }

    @Test
    void anyOtherAddressOrAPeerThatIsNotPostgresIsNotLocal() {
        assertThat(system.isOnThisHost("192.0.2.10:5432")).isFalse(); // TEST-NET-1, never assigned
        assertThat(system.isOnThisHost("2001:db8::5:5432")).isFalse();
        assertThat(system.isOnThisHost(null)).isFalse();
    }
}

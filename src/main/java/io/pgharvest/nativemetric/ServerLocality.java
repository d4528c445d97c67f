package io.pgharvest.nativemetric;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.function.Predicate;

/**
 * Decides whether a PostgreSQL server runs on the machine pgharvest runs on, from the address the
 * server itself reports for the session ({@code inet_server_addr()}): a Unix socket (no address),
 * a loopback address, or an address of one of this machine's network interfaces. The server's own
 * view is used rather than the connection string, so a server behind a port forward or NAT (a
 * container, another machine) is not mistaken for a local one; a server reached through a tunnel
 * that ends on the remote machine's loopback is (its loopback address looks local): a limit to know
 * when tunnelling.
 */
public final class ServerLocality {

    private final Predicate<InetAddress> localAddress;

    /** @param localAddress whether an address reported by a server belongs to this machine */
    public ServerLocality(Predicate<InetAddress> localAddress) {
        this.localAddress = localAddress;
    }

    /** This machine's interfaces, read when asked (addresses come and go). */
    public static ServerLocality system() {
        return new ServerLocality(address -> address.isLoopbackAddress() || isInterfaceAddress(address));
    }

    /**
     * @param serverAddress {@code host:port} as the server reports it, host empty for a Unix
     *     socket; null when the peer is not a PostgreSQL server
     * @return whether the server is on this machine
     */
    public boolean isOnThisHost(String serverAddress) {
        if (serverAddress == null) {
            return false;
        }
        int colon = serverAddress.lastIndexOf(':');
        String host = colon < 0 ? serverAddress : serverAddress.substring(0, colon);
        if (host.isEmpty()) {
            return true; // a Unix socket is always local
        }
        try {
            // A literal from inet_server_addr(): no name lookup happens.
            InetAddress address = InetAddress.getByName(host);
            return localAddress.test(address);
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static boolean isInterfaceAddress(InetAddress address) {
        try {
            return NetworkInterface.getByInetAddress(address) != null;
        } catch (SocketException e) {
            return false;
        }
    }
}

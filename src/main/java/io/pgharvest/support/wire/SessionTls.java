package io.pgharvest.support.wire;

import java.io.IOException;
import java.net.Socket;
import java.util.Properties;
import javax.net.ssl.SSLSocket;
import org.postgresql.ssl.LibPQFactory;
import org.postgresql.util.PSQLException;

/**
 * The TLS socket factory of every session pgharvest opens (pgjdbc's {@code sslfactory}): pgjdbc's
 * own {@link LibPQFactory}, so {@code sslmode}, {@code sslrootcert}, client certificates and
 * their password behave exactly as with pgjdbc's default, whose TLS socket is handed back to the
 * login that made it inside a {@link BoundedTlsSocket}: the only place where a TLS session's
 * protocol frames can be read, so that the bound on a result's bytes holds under TLS too.
 *
 * <p>A subclass rather than a wrapper: pgjdbc treats its {@link LibPQFactory} specially (it asks
 * it for key-manager errors after the handshake). Operators cannot name a factory of their own:
 * connection strings are libpq parameters, and {@code sslfactory} is not one
 * ({@code model.connection.JdbcParameters}), so this factory is always the one in use.
 *
 * <p>pgjdbc instantiates it by name for every TLS attempt, also for cancel requests on other
 * threads: a socket is wrapped only while a login runs {@link SessionSockets#capture} on this thread.
 */
public final class SessionTls extends LibPQFactory {

    /** pgjdbc's constructor by name, with the connection's properties. */
    public SessionTls(Properties info) throws PSQLException {
        super(info);
    }

    @Override
    public Socket createSocket(Socket socket, String host, int port, boolean autoClose) throws IOException {
        return SessionSockets.layered((SSLSocket) super.createSocket(socket, host, port, autoClose));
    }
}

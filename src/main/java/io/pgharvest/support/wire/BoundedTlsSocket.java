package io.pgharvest.support.wire;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiFunction;
import javax.net.ssl.HandshakeCompletedListener;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;

/**
 * The TLS socket pgjdbc reads a session through when TLS is negotiated: the JDK's own
 * {@link SSLSocket}, to which every method is handed, except that its plain-text input reaches
 * pgjdbc through a {@link ResultBytesBound}. The bound has to sit above TLS, where the protocol's
 * frames are readable; below it (on {@link BoundedPlainSocket}) are encrypted records. Made by
 * {@link SessionTls}, pgjdbc's {@code sslfactory}, which pgjdbc casts to {@link SSLSocket}: hence
 * a subclass that delegates rather than a plain wrapper.
 *
 * <p>Hazard: every public method of {@link java.net.Socket} and {@link SSLSocket} must be handed
 * to {@link #tls}; one that is not acts on this object's own, never connected, socket.
 */
final class BoundedTlsSocket extends SSLSocket {

    private final SSLSocket tls;
    private final ResultBytesBound bound;

    /** Where this socket counts dropped notices when it arms its own bound ({@link StartupWatch}), or null. */
    private final LongAdder armsItself;
    private volatile OutputStream watched;

    /** @param armsItself null when a session opener arms the bound after the login */
    BoundedTlsSocket(SSLSocket tls, LongAdder armsItself) throws IOException {
        this.tls = tls;
        this.bound = new ResultBytesBound(tls.getInputStream());
        this.armsItself = armsItself;
    }

    /** The bound pgjdbc reads this session through. */
    ResultBytesBound bound() {
        return bound;
    }

    @Override
    public InputStream getInputStream() throws IOException {
        if (tls.isClosed()) {
            throw new SocketException("Socket is closed");
        }
        return bound;
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
        if (armsItself == null) {
            return tls.getOutputStream();
        }
        OutputStream made = watched;
        if (made == null) {
            made = new StartupWatch(tls.getOutputStream(), () -> bound.follow(armsItself));
            watched = made;
        }
        return made;
    }

    @Override
    public void startHandshake() throws IOException {
        tls.startHandshake();
    }

    @Override
    public SSLSession getSession() {
        return tls.getSession();
    }

    @Override
    public SSLSession getHandshakeSession() {
        return tls.getHandshakeSession();
    }

    @Override
    public String[] getSupportedCipherSuites() {
        return tls.getSupportedCipherSuites();
    }

    @Override
    public String[] getEnabledCipherSuites() {
        return tls.getEnabledCipherSuites();
    }

    @Override
    public void setEnabledCipherSuites(String[] suites) {
        tls.setEnabledCipherSuites(suites);
    }

    @Override
    public String[] getSupportedProtocols() {
        return tls.getSupportedProtocols();
    }

    @Override
    public String[] getEnabledProtocols() {
        return tls.getEnabledProtocols();
    }

    @Override
    public void setEnabledProtocols(String[] protocols) {
        tls.setEnabledProtocols(protocols);
    }

    @Override
    public void addHandshakeCompletedListener(HandshakeCompletedListener listener) {
        tls.addHandshakeCompletedListener(listener);
    }

    @Override
    public void removeHandshakeCompletedListener(HandshakeCompletedListener listener) {
        tls.removeHandshakeCompletedListener(listener);
    }

    @Override
    public void setUseClientMode(boolean mode) {
        tls.setUseClientMode(mode);
    }

    @Override
    public boolean getUseClientMode() {
        return tls.getUseClientMode();
    }

    @Override
    public void setNeedClientAuth(boolean need) {
        tls.setNeedClientAuth(need);
    }

    @Override
    public boolean getNeedClientAuth() {
        return tls.getNeedClientAuth();
    }

    @Override
    public void setWantClientAuth(boolean want) {
        tls.setWantClientAuth(want);
    }

    @Override
    public boolean getWantClientAuth() {
        return tls.getWantClientAuth();
    }

    @Override
    public void setEnableSessionCreation(boolean flag) {
        tls.setEnableSessionCreation(flag);
    }

    @Override
    public boolean getEnableSessionCreation() {
        return tls.getEnableSessionCreation();
    }

    @Override
    public SSLParameters getSSLParameters() {
        return tls.getSSLParameters();
    }

    @Override
    public void setSSLParameters(SSLParameters params) {
        tls.setSSLParameters(params);
    }

    @Override
    public String getApplicationProtocol() {
        return tls.getApplicationProtocol();
    }

    @Override
    public String getHandshakeApplicationProtocol() {
        return tls.getHandshakeApplicationProtocol();
    }

    @Override
    public void setHandshakeApplicationProtocolSelector(BiFunction<SSLSocket, List<String>, String> selector) {
        tls.setHandshakeApplicationProtocolSelector(selector);
    }

    @Override
    public BiFunction<SSLSocket, List<String>, String> getHandshakeApplicationProtocolSelector() {
        return tls.getHandshakeApplicationProtocolSelector();
    }

    @Override
    public void connect(SocketAddress endpoint) throws IOException {
        tls.connect(endpoint);
    }

    @Override
    public void connect(SocketAddress endpoint, int timeout) throws IOException {
        tls.connect(endpoint, timeout);
    }

    @Override
    public void bind(SocketAddress bindpoint) throws IOException {
        tls.bind(bindpoint);
    }

    @Override
    public InetAddress getInetAddress() {
        return tls.getInetAddress();
    }

    @Override
    public InetAddress getLocalAddress() {
        return tls.getLocalAddress();
    }

    @Override
    public int getPort() {
        return tls.getPort();
    }

    @Override
    public int getLocalPort() {
        return tls.getLocalPort();
    }

    @Override
    public SocketAddress getRemoteSocketAddress() {
        return tls.getRemoteSocketAddress();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        return tls.getLocalSocketAddress();
    }

    @Override
    public SocketChannel getChannel() {
        return tls.getChannel();
    }

    @Override
    public void setTcpNoDelay(boolean on) throws SocketException {
        tls.setTcpNoDelay(on);
    }

    @Override
    public boolean getTcpNoDelay() throws SocketException {
        return tls.getTcpNoDelay();
    }

    @Override
    public void setSoLinger(boolean on, int linger) throws SocketException {
        tls.setSoLinger(on, linger);
    }

    @Override
    public int getSoLinger() throws SocketException {
        return tls.getSoLinger();
    }

    @Override
    public void sendUrgentData(int data) throws IOException {
        tls.sendUrgentData(data);
    }

    @Override
    public void setOOBInline(boolean on) throws SocketException {
        tls.setOOBInline(on);
    }

    @Override
    public boolean getOOBInline() throws SocketException {
        return tls.getOOBInline();
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        tls.setSoTimeout(timeout);
    }

    @Override
    public int getSoTimeout() throws SocketException {
        return tls.getSoTimeout();
    }

    @Override
    public void setSendBufferSize(int size) throws SocketException {
        tls.setSendBufferSize(size);
    }

    @Override
    public int getSendBufferSize() throws SocketException {
        return tls.getSendBufferSize();
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        tls.setReceiveBufferSize(size);
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
        return tls.getReceiveBufferSize();
    }

    @Override
    public void setKeepAlive(boolean on) throws SocketException {
        tls.setKeepAlive(on);
    }

    @Override
    public boolean getKeepAlive() throws SocketException {
        return tls.getKeepAlive();
    }

    @Override
    public void setTrafficClass(int tc) throws SocketException {
        tls.setTrafficClass(tc);
    }

    @Override
    public int getTrafficClass() throws SocketException {
        return tls.getTrafficClass();
    }

    @Override
    public void setReuseAddress(boolean on) throws SocketException {
        tls.setReuseAddress(on);
    }

    @Override
    public boolean getReuseAddress() throws SocketException {
        return tls.getReuseAddress();
    }

    @Override
    public void close() throws IOException {
        tls.close();
    }

    @Override
    public void shutdownInput() throws IOException {
        tls.shutdownInput();
    }

    @Override
    public void shutdownOutput() throws IOException {
        tls.shutdownOutput();
    }

    @Override
    public String toString() {
        return tls.toString();
    }

    @Override
    public boolean isConnected() {
        return tls.isConnected();
    }

    @Override
    public boolean isBound() {
        return tls.isBound();
    }

    @Override
    public boolean isClosed() {
        return tls.isClosed();
    }

    @Override
    public boolean isInputShutdown() {
        return tls.isInputShutdown();
    }

    @Override
    public boolean isOutputShutdown() {
        return tls.isOutputShutdown();
    }

    @Override
    public void setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        tls.setPerformancePreferences(connectionTime, latency, bandwidth);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return tls.supportedOptions();
    }

    @Override
    public <T> SSLSocket setOption(SocketOption<T> name, T value) throws IOException {
        tls.setOption(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return tls.getOption(name);
    }
}

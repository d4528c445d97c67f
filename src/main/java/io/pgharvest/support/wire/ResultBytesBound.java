package io.pgharvest.support.wire;

import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * The stream pgjdbc reads a session's server messages through: it follows the backend message
 * frames (one type byte, then an int32 length that counts itself) and drops the DataRow messages
 * of a result once they pass {@code maxBytes}, until that result ends. pgjdbc then sees a whole,
 * shorter result; the session stays in step with the server and usable, and the dropped rows are
 * never allocated (a 50 MB row is skipped by its length, not read into an array). The session asks
 * after each round trip which result was cut ({@link #cutResult}) and fails that metric alone.
 *
 * <p>Why here and not pgjdbc's {@code maxResultBuffer}: pgjdbc 42.7.14 counts before allocating,
 * but throws in the middle of the message; it then reads the rest of the row as messages, fails
 * and closes the connection, so the whole round trip fails without naming the metric, and a
 * pipeline holding it would break on every tick. A frame is cut here only at message boundaries,
 * which pgjdbc never notices.
 *
 * <p>Notices (NoticeResponse) are bounded the same way: pgjdbc parses each into an SQLWarning and
 * chains it on the statement (on the connection outside one), for as long as that object lives, so
 * a function that raises notices in a loop (a database owner's, run by a metric or by planning a
 * top statement) grew the heap until pgharvest ran out of memory. Per round trip (up to each
 * ReadyForQuery) at most {@link #NOTICES_KEPT} notices of at most {@link #NOTICE_MAX_BYTES} each
 * reach pgjdbc; every other one is dropped here unread, like a row past the limit, and counted
 * ({@link #droppedNotices}). pgharvest reads no notice, so dropping one changes no result.
 *
 * <p>Frames are followed by their lengths: bodies pass through without being looked at, so the
 * cost is a few comparisons per message and no allocation (dropped bytes are read into the
 * caller's own buffer and overwritten). A header split across reads is held back (at most five
 * bytes) until its length is known, since the first bytes of a dropped message must not reach
 * pgjdbc either.
 *
 * <p>Frames are followed from {@link #arm} on, which the session calls right after its login,
 * at a message boundary: during the login the stream also carries the one-byte answers to TLS and
 * GSS requests, and, under TLS, the encrypted records of the socket below (a bound is armed only
 * on the stream that carries plain protocol, {@link SessionSockets}). A byte that cannot start a
 * backend message (GSS encryption wraps the protocol in tokens, for example) switches this bound
 * off for good ({@link #lost}): everything then passes unchanged, as without it. The sessions of
 * pgharvest's own databases are armed earlier, at the StartupMessage, by their socket
 * ({@link StartupWatch}, {@link OwnSessions}): also a message boundary, with no result limit.
 *
 * <p>Not thread-safe: read, armed and asked by the thread that owns the session; {@link
 * #available} may be asked from another thread while no one reads (the idle-session watch).
 */
public final class ResultBytesBound extends InputStream {

    /** A bound that reads nothing and never cuts: for a session whose stream pgharvest did not make. */
    public static final ResultBytesBound NONE = new ResultBytesBound(InputStream.nullInputStream());

    /** Notices of one round trip that reach pgjdbc; later ones are dropped. */
    public static final int NOTICES_KEPT = 16;
    /** A longer notice (type byte and length included) is dropped: a server's own are a few hundred bytes. */
    public static final int NOTICE_MAX_BYTES = 8192;

    private static final int HEADER = 5;
    private static final int SCRATCH = 8192;
    private static final byte DATA_ROW = 'D';
    private static final byte NOTICE = 'N';
    /** The message types a backend sends (protocol 3.0 and 3.2); any other byte means the frames were lost. */
    private static final boolean[] BACKEND_TYPES = new boolean[256];

    static {
        for (char type : "RKS23CGHWdcDIEVnNAt1sZTv".toCharArray()) {
            BACKEND_TYPES[type] = true;
        }
    }

    private final InputStream in;
    /** The header being read: undecided bytes at its start ({@link #held}), or decided ones still to hand out. */
    private final byte[] header = new byte[HEADER];
    private final byte[] oneByte = new byte[1];
    private byte[] scratch;

    private boolean tracking;
    private boolean lost;
    private long maxBytes = Long.MAX_VALUE;
    /** Bytes of {@link #header} read but not yet decided (a header split across reads). */
    private int held;
    /** Decided header bytes not yet handed out: {@code header[HEADER - unsent ..]}. */
    private int unsent;
    /** Bytes of the current message's body still to come. */
    private long bodyLeft;
    private boolean droppingBody;
    /** The current result passed the limit: its further DataRows are dropped. */
    private boolean cutting;
    private long resultBytes;
    private int resultsEnded;
    private int firstCut = -1;
    /** Notices passed to pgjdbc since the last ReadyForQuery. */
    private int noticesKept;
    /** Notices dropped on this session; written by the reading thread only. */
    private volatile long droppedNotices;
    /** Where dropped notices are also counted (every session of one opener), or null. */
    private LongAdder droppedTally;

    public ResultBytesBound(InputStream in) {
        this.in = in;
    }

    /**
     * Starts following frames, cutting each result's DataRows past {@code maxBytes}. Call at a
     * message boundary (after the login's ReadyForQuery, before anything else is sent).
     */
    public void arm(long maxBytes) {
        if (this == NONE) {
            return;
        }
        if (maxBytes < 1) {
            throw new IllegalArgumentException("the byte limit must be positive, got " + maxBytes);
        }
        this.maxBytes = maxBytes;
        tracking = !lost;
    }

    /**
     * Starts following frames with no limit on results, notices bounded ({@link #NOTICES_KEPT}),
     * dropped ones also added to {@code tally}. Call at a message boundary, as {@link #arm}; a
     * later {@link #arm} adds the result limit.
     */
    public void follow(LongAdder tally) {
        if (this == NONE) {
            return;
        }
        droppedTally = tally;
        tracking = !lost;
    }

    /** Notices this session dropped since it opened (read from any thread). */
    public long droppedNotices() {
        return droppedNotices;
    }

    /** Starts a round trip: results are counted, and a cut is reported, from here on. */
    public void watch() {
        resultsEnded = 0;
        firstCut = -1;
    }

    /**
     * The result cut since {@link #watch}, by its position among the results that round trip
     * ended (CommandComplete, PortalSuspended, EmptyQueryResponse or ErrorResponse), or -1.
     */
    public int cutResult() {
        return firstCut;
    }

    /** Whether this bound switched itself off after reading a byte that cannot start a backend message. */
    public boolean lost() {
        return lost;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (!tracking && unsent == 0) {
            return in.read(b, off, len);
        }
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        while (true) {
            if (unsent > 0) {
                int n = Math.min(unsent, len);
                System.arraycopy(header, HEADER - unsent, b, off, n);
                unsent -= n;
                return n;
            }
            if (droppingBody && bodyLeft > 0) {
                if (!dropBody(b, off, len)) {
                    return -1;
                }
                continue;
            }
            if (held > 0 && len <= held) {
                if (!completeHeader()) {
                    return -1;
                }
                continue;
            }
            // Read behind the held bytes, then put them in front: the buffer then starts a message.
            int start = held;
            int n = in.read(b, off + start, len - start);
            if (n < 0) {
                return -1; // a header cut off by the end of the stream is not handed out: pgjdbc sees the end
            }
            System.arraycopy(header, 0, b, off, start);
            held = 0;
            int kept = filter(b, off, start + n);
            if (kept > 0) {
                return kept;
            }
            // Everything read was dropped or held back: read on (the caller asked for at least one byte).
        }
    }

    /**
     * Reads and forgets the dropped body's next bytes: into the caller's buffer when it is large,
     * into {@link #scratch} when the caller reads a few bytes at a time (pgjdbc does near the end
     * of its buffer), so that a 50 MB row is never skipped four bytes per read.
     */
    private boolean dropBody(byte[] b, int off, int len) throws IOException {
        byte[] into = b;
        int at = off;
        int room = len;
        if (len < SCRATCH) {
            into = scratch();
            at = 0;
            room = SCRATCH;
        }
        int n = in.read(into, at, (int) Math.min(room, bodyLeft));
        if (n < 0) {
            return false;
        }
        bodyLeft -= n;
        return true;
    }

    private byte[] scratch() {
        if (scratch == null) {
            scratch = new byte[SCRATCH]; // once per session, and only for one that drops or skips
        }
        return scratch;
    }

    /** Reads the rest of a held header into {@link #header} itself, for a caller reading fewer bytes than it holds. */
    private boolean completeHeader() throws IOException {
        while (held < HEADER) {
            int n = in.read(header, held, HEADER - held);
            if (n < 0) {
                return false;
            }
            held += n;
        }
        held = 0;
        if (!decide(header, 0) || !droppingBody) {
            unsent = HEADER; // passed (or, lost, passed as it came)
        }
        return true;
    }

    /**
     * Filters {@code b[off, off + count)} in place: kept bytes are moved down over dropped ones,
     * an incomplete header at the end is held back.
     *
     * @return how many bytes are kept, from {@code off}
     */
    private int filter(byte[] b, int off, int count) {
        int p = off;
        int end = off + count;
        int w = off;
        while (p < end) {
            if (bodyLeft > 0) {
                int take = (int) Math.min(bodyLeft, end - p);
                if (!droppingBody) {
                    if (w != p) {
                        System.arraycopy(b, p, b, w, take);
                    }
                    w += take;
                }
                p += take;
                bodyLeft -= take;
                continue;
            }
            if (end - p < HEADER) {
                held = end - p;
                System.arraycopy(b, p, header, 0, held);
                return w - off;
            }
            if (!decide(b, p)) {
                // Lost: pass the rest unchanged, and everything after it.
                int rest = end - p;
                if (w != p) {
                    System.arraycopy(b, p, b, w, rest);
                }
                return w - off + rest;
            }
            if (!droppingBody) {
                if (w != p) {
                    System.arraycopy(b, p, b, w, HEADER);
                }
                w += HEADER;
            }
            p += HEADER;
        }
        return w - off;
    }

    /**
     * Decides the fate of the message whose header is at {@code b[at]}: sets {@link #bodyLeft}
     * and {@link #droppingBody}, counts DataRows and result ends.
     *
     * @return false when the header cannot be a backend message's (this bound is then off)
     */
    private boolean decide(byte[] b, int at) {
        int type = b[at] & 0xff;
        int length = ((b[at + 1] & 0xff) << 24) | ((b[at + 2] & 0xff) << 16) | ((b[at + 3] & 0xff) << 8)
                | (b[at + 4] & 0xff);
        if (!BACKEND_TYPES[type] || length < 4) {
            lost = true;
            tracking = false;
            bodyLeft = 0;
            droppingBody = false;
            return false;
        }
        bodyLeft = length - 4;
        droppingBody = false;
        switch (type) {
            case DATA_ROW -> {
                long size = length + 1L;
                if (cutting || resultBytes + size > maxBytes) {
                    if (!cutting && firstCut < 0) {
                        firstCut = resultsEnded;
                    }
                    cutting = true;
                    droppingBody = true;
                } else {
                    resultBytes += size;
                }
            }
            case NOTICE -> {
                if (noticesKept >= NOTICES_KEPT || length + 1L > NOTICE_MAX_BYTES) {
                    droppingBody = true;
                    dropNotice();
                } else {
                    noticesKept++;
                }
            }
            case 'C', 's', 'I', 'E' -> {
                resultsEnded++;
                endResult();
            }
            case 'Z' -> {
                endResult();
                noticesKept = 0;
            }
            default -> {
                // other messages pass and count nothing
            }
        }
        return true;
    }

    private void dropNotice() {
        droppedNotices++; // one writer: the session's reading thread
        if (droppedTally != null) {
            droppedTally.increment();
        }
    }

    private void endResult() {
        resultBytes = 0;
        cutting = false;
    }

    @Override
    public int read() throws IOException {
        int n;
        do {
            n = read(oneByte, 0, 1);
        } while (n == 0);
        return n < 0 ? -1 : oneByte[0] & 0xff;
    }

    /** Skips by reading, so that skipped bytes are followed like read ones. */
    @Override
    public long skip(long n) throws IOException {
        if (!tracking && unsent == 0) {
            return in.skip(n);
        }
        byte[] into = scratch(); // pgjdbc skips rarely (a message it does not want)
        long left = n;
        while (left > 0) {
            int r = read(into, 0, (int) Math.min(into.length, left));
            if (r < 0) {
                break;
            }
            left -= r;
        }
        return n - left;
    }

    /** What the socket holds, plus header bytes decided but not handed out. */
    @Override
    public int available() throws IOException {
        return unsent + in.available();
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}

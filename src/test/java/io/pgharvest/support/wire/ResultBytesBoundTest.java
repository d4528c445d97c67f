package io.pgharvest.support.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The result byte bound on hand-made backend messages: what pgjdbc receives is the server's stream
 * without the DataRows of a result past the limit, whole messages only, however the socket splits
 * the bytes; the cut result is reported by its position in the round trip.
 */
class ResultBytesBoundTest {

    private static final int LIMIT = 100;
    /** DataRow messages of 35 bytes: two fit under the limit, the third does not. */
    private static final byte[] ROW = message('D', 30);
    private static final byte[] BEGIN = message('C', "BEGIN");
    private static final byte[] DESCRIPTION = message('T', 20);
    private static final byte[] SELECT = message('C', "SELECT 4");
    private static final byte[] READY = message('Z', 1);

    /** BEGIN, a result of four rows (140 bytes: cut after two), a result of one row, ReadyForQuery. */
    private static final byte[] SENT = concat(BEGIN, DESCRIPTION, ROW, ROW, ROW, message('D', 2), SELECT,
            DESCRIPTION, ROW, message('C', "SELECT 1"), READY);
    private static final byte[] RECEIVED = concat(BEGIN, DESCRIPTION, ROW, ROW, SELECT,
            DESCRIPTION, ROW, message('C', "SELECT 1"), READY);

    @Test
    void dropsTheRowsOfAResultPastTheLimitAndNamesItsPosition() throws IOException {
        var bound = armed(new Chunks(SENT));
        assertThat(readAll(bound, 8192)).isEqualTo(RECEIVED);
        assertThat(bound.cutResult()).isEqualTo(1); // BEGIN's result is the round trip's first
        assertThat(bound.lost()).isFalse();
    }

    @Test
    void framesSplitAtEveryByteAndReadInTinyPiecesGiveTheSameMessages() throws IOException {
        for (int split = 0; split <= SENT.length; split++) {
            for (int readSize : new int[] {1, 2, 3, 4, 5, 6, 7, 64, 8192}) {
                var bound = armed(new Chunks(SENT, split));
                assertThat(readAll(bound, readSize)).as("split at %d, reads of %d", split, readSize).isEqualTo(RECEIVED);
                assertThat(bound.cutResult()).isEqualTo(1);
            }
        }
    }

    @Test
    void aSocketThatHandsOutOneByteAtATimeGivesTheSameMessages() throws IOException {
        for (int readSize : new int[] {1, 5, 8192}) {
            var bound = armed(new Chunks(SENT, oneByteChunks(SENT.length)));
            assertThat(readAll(bound, readSize)).isEqualTo(RECEIVED);
            assertThat(bound.cutResult()).isEqualTo(1);
        }
    }

    @Test
    void oneRowLargerThanTheLimitIsSkippedByItsLengthAndTheNextResultIsWhole() throws IOException {
        byte[] sent = concat(DESCRIPTION, message('D', 5_000_000), message('C', "SELECT 1"), DESCRIPTION, ROW, SELECT, READY);
        Chunks source = new Chunks(sent);
        ResultBytesBound bound = armed(source);
        assertThat(readAll(bound, 8192)).isEqualTo(concat(DESCRIPTION, message('C', "SELECT 1"), DESCRIPTION, ROW,
                SELECT, READY));
        assertThat(bound.cutResult()).isZero();
        assertThat(source.largestRead).as("the row is read in the caller's pieces, never whole").isLessThanOrEqualTo(8192);

        // A caller reading three bytes at a time: the dropped row is still read in large pieces.
        source = new Chunks(sent);
        bound = armed(source);
        assertThat(readAll(bound, 3)).isEqualTo(concat(DESCRIPTION, message('C', "SELECT 1"), DESCRIPTION, ROW,
                SELECT, READY));
        assertThat(source.reads).isLessThan(5_000_000 / 1000);
    }

    @Test
    void aResultUnderTheLimitPassesWholeAndNothingIsReportedCut() throws IOException {
        byte[] sent = concat(DESCRIPTION, ROW, ROW, SELECT, DESCRIPTION, ROW, ROW, SELECT, READY);
        var bound = armed(new Chunks(sent, 7));
        assertThat(readAll(bound, 3)).isEqualTo(sent);
        assertThat(bound.cutResult()).isEqualTo(-1);
    }

    @Test
    void eachRoundTripReportsItsOwnCut() throws IOException {
        byte[] sent = concat(SENT, DESCRIPTION, ROW, SELECT, READY);
        var bound = armed(new Chunks(sent));
        byte[] buffer = new byte[RECEIVED.length];
        readFully(bound, buffer);
        assertThat(bound.cutResult()).isEqualTo(1);
        bound.watch();
        assertThat(readAll(bound, 8192)).isEqualTo(concat(DESCRIPTION, ROW, SELECT, READY));
        assertThat(bound.cutResult()).isEqualTo(-1);
    }

    @Test
    void readsOnlyInsideTheCallersRange() throws IOException {
        var bound = armed(new Chunks(SENT, 11));
        var out = new ByteArrayOutputStream();
        byte[] buffer = new byte[20];
        int n;
        while (true) {
            Arrays.fill(buffer, (byte) 0x7f);
            n = bound.read(buffer, 3, 9);
            if (n < 0) {
                break;
            }
            assertThat(n).isBetween(1, 9);
            for (int i = 0; i < buffer.length; i++) {
                if (i < 3 || i >= 12) {
                    assertThat(buffer[i]).as("byte %d outside the range", i).isEqualTo((byte) 0x7f);
                }
            }
            out.write(buffer, 3, n);
        }
        assertThat(out.toByteArray()).isEqualTo(RECEIVED);
    }

    @Test
    void skippedBytesAreFollowedLikeReadOnes() throws IOException {
        var bound = armed(new Chunks(SENT, 3));
        assertThat(bound.skip(BEGIN.length + DESCRIPTION.length)).isEqualTo(BEGIN.length + DESCRIPTION.length);
        assertThat(readAll(bound, 8192)).isEqualTo(Arrays.copyOfRange(RECEIVED, BEGIN.length + DESCRIPTION.length,
                RECEIVED.length));
        assertThat(bound.cutResult()).isEqualTo(1);
    }

    @Test
    void beforeItIsArmedEveryBytePassesAsItCame() throws IOException {
        // The one-byte answer to an SSLRequest ('N') is no message: a bound not yet armed does not look.
        byte[] sent = concat(new byte[] {'N'}, SENT);
        var bound = new ResultBytesBound(new Chunks(sent, 1));
        assertThat(readAll(bound, 8192)).isEqualTo(sent);
        assertThat(bound.cutResult()).isEqualTo(-1);
    }

    @Test
    void aByteThatStartsNoBackendMessageSwitchesTheBoundOffAndEverythingPasses() throws IOException {
        // A GSS-encrypted stream: a 4-byte token length whose first byte is 0.
        byte[] sent = concat(new byte[] {0, 0, 0, 12}, SENT);
        for (int readSize : new int[] {1, 2, 3, 8192}) {
            var bound = armed(new Chunks(sent, 2));
            assertThat(readAll(bound, readSize)).isEqualTo(sent);
            assertThat(bound.lost()).isTrue();
            assertThat(bound.cutResult()).isEqualTo(-1);
        }
        var bound = armed(new Chunks(sent, 2));
        assertThat(readAll(bound, 8192)).isEqualTo(sent);
        assertThat(bound.lost()).isTrue();
        assertThat(bound.cutResult()).isEqualTo(-1);
    }

    @Test
    void theEndOfTheStreamInsideAHeaderEndsTheRead() throws IOException {
        byte[] sent = concat(BEGIN, Arrays.copyOf(ROW, 3));
        var bound = armed(new Chunks(sent));
        assertThat(readAll(bound, 8192)).isEqualTo(BEGIN);
    }

    private static ResultBytesBound armed(InputStream in) {
        var bound = new ResultBytesBound(in);
        bound.arm(LIMIT);
        bound.watch();
        return bound;
    }

    private static byte[] readAll(InputStream in, int readSize) throws IOException {
        var out = new ByteArrayOutputStream();
        byte[] buffer = new byte[readSize];
        int n;
        while ((n = in.read(buffer, 0, readSize)) >= 0) {
            assertThat(n).as("a read returns at least one byte").isPositive();
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }

    private static void readFully(InputStream in, byte[] buffer) throws IOException {
        int off = 0;
        while (off < buffer.length) {
            int n = in.read(buffer, off, buffer.length - off);
            assertThat(n).isPositive();
            off += n;
        }
    }

    /** A backend message of {@code type} with a body of {@code bodyLength} bytes. */
    private static byte[] message(char type, int bodyLength) {
        byte[] body = new byte[bodyLength];
        Arrays.fill(body, (byte) type); // bodies full of message-type letters: a bound that read them as headers would go wrong
        return message(type, body);
    }

    private static byte[] message(char type, String tag) {
        byte[] text = tag.getBytes(StandardCharsets.US_ASCII);
        return message(type, Arrays.copyOf(text, text.length + 1));
    }

    private static byte[] message(char type, byte[] body) {
        return ByteBuffer.allocate(5 + body.length).put((byte) type).putInt(4 + body.length).put(body).array();
    }

    private static byte[] concat(byte[]... parts) {
        var out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    private static int[] oneByteChunks(int length) {
        int[] ends = new int[length];
        for (int i = 0; i < length; i++) {
            ends[i] = i + 1;
        }
        return ends;
    }

    /** A socket's stream: hands out {@code data} in pieces ending at the given offsets, never across one. */
    private static final class Chunks extends InputStream {
        private final byte[] data;
        private final int[] ends;
        private int position;
        private int chunk;
        int largestRead;
        int reads;

        Chunks(byte[] data, int... ends) {
            this.data = data;
            this.ends = ends;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (position >= data.length) {
                return -1;
            }
            while (chunk < ends.length && ends[chunk] <= position) {
                chunk++;
            }
            int limit = chunk < ends.length ? ends[chunk] : data.length;
            int n = Math.min(len, limit - position);
            System.arraycopy(data, position, b, off, n);
            position += n;
            largestRead = Math.max(largestRead, n);
            reads++;
            return n;
        }

        @Override
        public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }
    }
}

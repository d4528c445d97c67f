package io.pgharvest.kind.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.kind.FetchedRows;
import io.pgharvest.kind.MetricQuery;
import io.pgharvest.kind.ResultLimits;
import io.pgharvest.kind.SessionSettings;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.support.wire.ResultBytesBound;
import io.pgharvest.testsupport.TestPostgres;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What the result byte bound costs ({@code docs/performance.md}, "The result byte bound"): the CPU
 * of reading a stream of result messages through it, armed, against the same stream read plainly,
 * in memory (its own cost, without the network); and the CPU of whole round trips on a real
 * session, to set that cost against. Prints {@code [result-bytes-bound]} lines. A measurement
 * outside the normal build:
 * {@code ./mvnw -B -o -Dtest=ResultBytesBoundBenchmark -Dtest.excludedGroups= -Dsurefire.failIfNoSpecifiedTests=false test}.
 */
@Tag("benchmark")
class ResultBytesBoundBenchmark {

    /** Rows shaped like a catalog metric's: five columns, about 90 bytes a DataRow. */
    private static final int ROWS = 200_000;
    private static final int ROUNDS = 15;
    private static final int READ_SIZE = 8192; // pgjdbc's buffer

    @Test
    void cpuOfReadingResultsThroughTheBound() throws IOException {
        byte[] stream = results(ROWS);
        int messages = ROWS + 3;
        long[] plain = new long[ROUNDS];
        long[] armed = new long[ROUNDS];
        byte[] buffer = new byte[READ_SIZE];
        long checksum = 0;
        for (int round = 0; round < ROUNDS; round++) {
            long start = cpu();
            checksum += drain(new ByteArrayInputStream(stream), buffer);
            plain[round] = cpu() - start;
            var bound = new ResultBytesBound(new ByteArrayInputStream(stream));
            bound.arm(ResultLimits.DEFAULT_MAX_BYTES);
            bound.watch();
            start = cpu();
            checksum -= drain(bound, buffer);
            armed[round] = cpu() - start;
            assertThat(bound.cutResult()).isEqualTo(-1);
        }
        assertThat(checksum).isZero(); // the bound passed every byte
        long plainMedian = median(plain);
        long armedMedian = median(armed);
        double mb = stream.length / 1024.0 / 1024.0;
        System.out.printf("[result-bytes-bound] in memory, %d messages, %.1f MB, reads of %d bytes, median of %d: plain %.2f ms,"
                + " through the bound %.2f ms; the bound's own cost %.1f ns per message, %.2f ms per MB%n",
                messages, mb, READ_SIZE, ROUNDS, plainMedian / 1e6, armedMedian / 1e6,
                (armedMedian - plainMedian) / (double) messages, (armedMedian - plainMedian) / 1e6 / mb);
    }

    /**
     * Two sessions to the same server, one reading through an armed bound and one through a bound
     * never armed (a pass-through, as before the bound existed), run in alternating rounds.
     */
    @Test
    void cpuOfARoundTripOnARealSessionWithAndWithoutTheBound() throws Exception {
        TestPostgres pg = TestPostgres.shared();
        pg.createDatabase("result_bytes_bench");
        var opener = new SessionOpener(new SessionSettings(Duration.ofSeconds(10), Duration.ofSeconds(30),
                Duration.ofSeconds(1), Duration.ofMinutes(2), false, true, ResultLimits.DEFAULT));
        var queries = new ArrayList<MetricQuery>();
        for (int i = 0; i < 20; i++) {
            queries.add(new MetricQuery("m" + i, "select n, n * 2 as b, 'relation_' || n as name, n::float8 / 3 as ratio,"
                    + " now() as at from generate_series(1, 500) n", Duration.ofSeconds(30)));
        }
        var conn = ConnectionString.parse(pg.connStr("result_bytes_bench"));
        var withBound = opener.openWithSocket(conn);
        var without = opener.openWithSocket(conn);
        withBound.bound().arm(ResultLimits.DEFAULT_MAX_BYTES);
        try (var armed = new QueryPipeline(withBound.value(), Duration.ofSeconds(30), Duration.ofMinutes(2),
                     ResultLimits.DEFAULT, withBound.bound());
             var plain = new QueryPipeline(without.value(), Duration.ofSeconds(30), Duration.ofMinutes(2),
                     ResultLimits.DEFAULT, ResultBytesBound.NONE)) {
            int trips = 200;
            int rounds = 7;
            long[] armedCpu = new long[rounds];
            long[] plainCpu = new long[rounds];
            for (int round = 0; round < rounds; round++) {
                plainCpu[round] = cpuOf(plain, queries, trips);
                armedCpu[round] = cpuOf(armed, queries, trips);
            }
            System.out.printf("[result-bytes-bound] real session, round trips of 20 metrics x 500 rows (about 10,050"
                    + " messages), CPU of the reading thread per round trip, median of %d x %d: without the bound"
                    + " %.3f ms, through it %.3f ms (each round, without/with: %s / %s)%n",
                    rounds, trips, median(plainCpu) / 1e6 / trips, median(armedCpu) / 1e6 / trips,
                    Arrays.toString(Arrays.stream(plainCpu).map(c -> c / trips / 1000).toArray()),
                    Arrays.toString(Arrays.stream(armedCpu).map(c -> c / trips / 1000).toArray()));
        } finally {
            withBound.value().close();
            without.value().close();
        }
    }

    /** CPU nanoseconds of {@code trips} round trips of {@code queries} on this thread. */
    private static long cpuOf(QueryPipeline pipeline, List<MetricQuery> queries, int trips) throws Exception {
        long start = cpu();
        for (int i = 0; i < trips; i++) {
            List<FetchedRows> results = pipeline.run(queries);
            assertThat(results.getLast().rows()).hasSize(500);
        }
        return cpu() - start;
    }

    private static long drain(InputStream in, byte[] buffer) throws IOException {
        long sum = 0;
        int n;
        while ((n = in.read(buffer, 0, buffer.length)) >= 0) {
            sum += n;
        }
        return sum;
    }

    private static byte[] results(int rows) {
        var out = new ByteArrayOutputStream();
        out.writeBytes(message('T', 140));
        byte[] row = dataRow();
        for (int i = 0; i < rows; i++) {
            out.writeBytes(row);
        }
        out.writeBytes(message('C', 12));
        out.writeBytes(message('Z', 1));
        return out.toByteArray();
    }

    /** Five columns: 8 + 8 + 20 + 18 + 29 bytes of text, as a catalog metric's row. */
    private static byte[] dataRow() {
        int[] widths = {8, 8, 20, 18, 29};
        var body = ByteBuffer.allocate(2 + widths.length * 4 + Arrays.stream(widths).sum());
        body.putShort((short) widths.length);
        for (int width : widths) {
            body.putInt(width);
            for (int i = 0; i < width; i++) {
                body.put((byte) ('0' + i % 10));
            }
        }
        return message('D', body.array());
    }

    private static byte[] message(char type, int bodyLength) {
        return message(type, new byte[bodyLength]);
    }

    private static byte[] message(char type, byte[] body) {
        return ByteBuffer.allocate(5 + body.length).put((byte) type).putInt(4 + body.length).put(body).array();
    }

    private static long cpu() {
        return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }

    private static long median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}

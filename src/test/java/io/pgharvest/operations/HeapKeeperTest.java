package io.pgharvest.operations;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Serial collector's old generation stays near the live data when promoted garbage piles up:
 * checked in a JVM of its own started with the shipped collector flags (the test JVM's collector
 * is not ours to choose).
 */
class HeapKeeperTest {

    @Test
    void collectsOnlyWhenTheOldGenerationHasGrownPastOneAndAQuarterTimesTheLiveDataAndAnAllowance() {
        long mb = 1L << 20;
        assertThat(HeapKeeper.worthCollecting(9 * mb, 0)).isTrue();
        assertThat(HeapKeeper.worthCollecting(8 * mb, 0)).isFalse();
        assertThat(HeapKeeper.worthCollecting(46 * mb, 30 * mb)).isTrue();
        assertThat(HeapKeeper.worthCollecting(45 * mb + 512 * 1024, 30 * mb)).isFalse();
    }

    @Test
    void keepsTheSerialOldGenerationNearTheLiveData() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        var command = List.of(java, "-XX:+UseSerialGC", "-Xms24m", "-Xmn16m", "-Xmx1g",
                "-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=10", "-XX:-ShrinkHeapInSteps",
                "-cp", System.getProperty("java.class.path"), PromotedGarbage.class.getName());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("child JVM finished").isTrue();
        String output = new String(process.getInputStream().readAllBytes()).strip();
        assertThat(process.exitValue()).as(output).isZero();
        String[] figures = output.lines().reduce((a, b) -> b).orElseThrow().split(" ");
        long collections = Long.parseLong(figures[0]);
        long oldCommittedMb = Long.parseLong(figures[1]);
        // 400 MB promoted over the run, 20 MB of it live at any time.
        assertThat(collections).as(output).isPositive();
        assertThat(oldCommittedMb).as(output).isLessThan(150);
    }

    /** Promotes 400 MB of short-lived data, as a sink batch's rows are; prints collections and old MB. */
    public static final class PromotedGarbage {
        public static void main(String[] args) throws Exception {
            var keeper = new HeapKeeper(Duration.ofMillis(50));
            keeper.start();
            var window = new ArrayList<byte[]>();
            for (int i = 0; i < 400; i++) {
                window.add(new byte[1 << 20]); // survives twenty young collections' worth: promoted
                if (window.size() > 20) {
                    window.removeFirst();
                }
                Thread.sleep(2);
            }
            Thread.sleep(300); // a last check
            keeper.stop();
            MemoryPoolMXBean old = ManagementFactory.getMemoryPoolMXBeans().stream()
                    .filter(p -> p.getName().equals(HeapKeeper.SERIAL_OLD_POOL)).findFirst().orElseThrow();
            System.out.println(keeper.collections() + " " + (old.getUsage().getCommitted() >> 20));
        }
    }
}

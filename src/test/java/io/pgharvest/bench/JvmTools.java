package io.pgharvest.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * jcmd of the JDK that runs the measured processes: a full GC, then the heap in use after it.
 * Runs AFTER a window's CPU figures are taken, since the GC costs the process CPU.
 */
final class JvmTools {

    /** "DefNew total 116224K, used 0K", "garbage-first heap total reserved 6172672K, committed 57344K, used 12798K". */
    private static final Pattern USED = Pattern.compile("total (?:reserved )?\\d+K, (?:committed \\d+K, )?used (\\d+)K");
    private static final long TIMEOUT_SECONDS = 60;

    private final Path jcmd;

    JvmTools(Path java) {
        this.jcmd = java.resolveSibling("jcmd");
    }

    /** Runs a full GC in {@code pid} and returns the heap used after it, in kB (-1 if unknown). */
    long heapUsedAfterGcKb(long pid) {
        run(pid, "GC.run");
        return parseHeapUsedKb(run(pid, "GC.heap_info"));
    }

    static long parseHeapUsedKb(String heapInfo) {
        Matcher m = USED.matcher(heapInfo);
        long used = 0;
        boolean found = false;
        while (m.find()) {
            used += Long.parseLong(m.group(1));
            found = true;
        }
        return found ? used : -1;
    }

    /** Starts a JFR recording (profiling settings) that {@link #stopRecording} writes to {@code file}. */
    void startRecording(long pid, Path file) throws IOException {
        java.nio.file.Files.createDirectories(file.getParent());
        run(pid, "JFR.start name=bench settings=profile filename=" + file);
    }

    void stopRecording(long pid) {
        run(pid, "JFR.stop name=bench");
    }

    /** Saves the class histogram (top entries) and, when tracked, the native memory summary. */
    void saveDiagnostics(long pid, Path file) throws IOException {
        String histogram = run(pid, "GC.class_histogram");
        String top = String.join("\n", histogram.lines().limit(45).toList());
        String nmt = run(pid, "VM.native_memory summary");
        java.nio.file.Files.createDirectories(file.getParent());
        java.nio.file.Files.writeString(file, top + "\n\n" + nmt, StandardCharsets.UTF_8);
    }

    private String run(long pid, String command) {
        try {
            var arguments = new java.util.ArrayList<>(List.of(jcmd.toString(), Long.toString(pid)));
            arguments.addAll(List.of(command.split(" ")));
            Process p = new ProcessBuilder(arguments)
                    .redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("jcmd " + pid + " " + command + " did not finish in "
                        + TIMEOUT_SECONDS + " s");
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot run " + jcmd + " " + pid + " " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running jcmd " + pid + " " + command, e);
        }
    }
}

package io.pgharvest.insights;

import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.NativeTarget;
import java.sql.SQLException;

/**
 * pg_stat_statements in one source's database for one collector: looked up once, again after a
 * read failed because it was dropped, moved or updated ({@link #forget}), and, while it is missing,
 * why ({@link #missing}), so that a member of an instance-wide read can wait for another member's
 * read instead. Used by the source's reaper thread only.
 */
final class ExtensionLookup {

    /** The extension in the source's database; null until found, or while it is missing there. */
    private StatementsExtension extension;
    /** Why the extension cannot be read in the source's database; null unless it is missing. */
    private NativeMetric.Unavailable missing;

    /** The extension, looked up when not known; null (and {@link #missing()} set) when it is not there. */
    StatementsExtension find(NativeTarget target) throws SQLException {
        if (extension == null) {
            try {
                extension = StatementsExtension.find(target.sql(), target.database());
                missing = null;
            } catch (NativeMetric.Unavailable e) {
                missing = e;
            }
        }
        return extension;
    }

    /** Why it was missing at the last look-up; null when it was found (or not looked up yet). */
    NativeMetric.Unavailable missing() {
        return missing;
    }

    /** Looks it up again next time. */
    void forget() {
        extension = null;
    }
}

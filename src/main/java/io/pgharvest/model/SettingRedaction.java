package io.pgharvest.model;

import io.pgharvest.model.connection.ConnectionSecrets;
import io.pgharvest.model.connection.ConnectionString;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Server settings in measurements without their secrets, applied to everything a source publishes
 * (the reaper calls it before any sink, the recent window, the change detector or the API sees a
 * row). {@code pg_read_all_settings}, part of {@code pg_monitor}, shows a monitoring role every
 * setting's value, and some values are secrets:
 * <ul>
 *   <li>connection strings ({@code primary_conninfo}, any setting named {@code ...conninfo}, and
 *   any value that parses as connection text with a password) lose their {@code password} and
 *   {@code sslpassword} values ({@link ConnectionSecrets}), always;
 *   <li>settings that hold a command or a secret by nature ({@link #holdsCommandOrSecret}:
 *   {@code archive_command}, {@code restore_command}, {@code ssl_passphrase_command}, any name ending
 *   in {@code _command}, {@code password}, {@code passphrase} or {@code secret}) become
 *   {@link ConnectionString#MASK} unless the source keeps them ({@link Source#keepCommandSettings()});
 *   a kept command still loses the passwords of connection text inside it.
 * </ul>
 *
 * <p>Which rows carry settings is a naming rule, like {@link QueryTextRedaction}'s, so it covers
 * pgwatch's imported metrics and operators' own without a setting of theirs: a row names the
 * setting it describes in a tag {@code setting} or {@code name} or a column {@code name} or
 * {@code setting_name} (pg_settings' own column), and then every other string in it is treated as
 * that setting's value, except pg_settings' descriptive columns ({@link #DESCRIPTIVE}); and a
 * column or tag named like a secret-bearing setting (a wide row of {@code current_setting(...)}
 * columns) is that setting's value.
 */
public final class SettingRedaction {

    /** Where a row names the setting it describes: tags first, then pg_settings' column. */
    private static final List<String> NAME_TAGS = List.of("setting", "name", "setting_name");
    private static final List<String> NAME_COLUMNS = List.of("name", "setting_name");
    /** pg_settings' columns that describe a setting and never hold its value. */
    private static final Set<String> DESCRIPTIVE = Set.of("unit", "source", "vartype", "context", "category",
            "short_desc", "extra_desc", "sourcefile", "sourceline", "enumvals", "pending_restart", "min_val",
            "max_val");
    private static final List<String> SECRET_SUFFIXES = List.of("_command", "password", "passphrase", "secret");

    private SettingRedaction() {
    }

    /** Whether a setting of this name holds a connection string, whose passwords never leave. */
    public static boolean holdsConnection(String setting) {
        return endsWithIgnoringCase(setting, "conninfo");
    }

    /** Whether a setting of this name holds a command or a secret, masked unless the source keeps them. */
    public static boolean holdsCommandOrSecret(String setting) {
        for (String suffix : SECRET_SUFFIXES) {
            if (endsWithIgnoringCase(setting, suffix)) {
                return true;
            }
        }
        return false;
    }

    /** Without a lower-cased copy: this runs on every column name of every batch. */
    private static boolean endsWithIgnoringCase(String name, String suffix) {
        int start = name.length() - suffix.length();
        return start >= 0 && name.regionMatches(true, start, suffix, 0, suffix.length());
    }

    /** {@code value} of setting {@code setting} as it may leave pgharvest. */
    public static String shown(String setting, String value, boolean keepCommands) {
        return Described.of(setting).shown(value, keepCommands);
    }

    /**
     * A setting's name with what it says about its values, worked out once per row (a row of
     * {@code settings_num} has a dozen values of one setting; this runs on every row of every batch).
     */
    private record Described(boolean connection, boolean commandOrSecret) {

        private static final Described PLAIN = new Described(false, false);

        static Described of(String setting) {
            boolean connection = holdsConnection(setting);
            boolean secret = holdsCommandOrSecret(setting);
            return connection || secret ? new Described(connection, secret) : PLAIN;
        }

        String shown(String value, boolean keepCommands) {
            if (value == null || value.isEmpty()) {
                return value;
            }
            if (connection) {
                return ConnectionSecrets.masked(value);
            }
            if (commandOrSecret && !keepCommands) {
                return ConnectionString.MASK;
            }
            return ConnectionSecrets.maskedIfConnection(value);
        }
    }

    /** {@code batch} with its settings' secrets removed; the same list when it has none. */
    public static List<Measurement> redact(List<Measurement> batch, boolean keepCommands) {
        List<Measurement> out = null;
        for (int i = 0; i < batch.size(); i++) {
            Measurement original = batch.get(i);
            Measurement redacted = redact(original, keepCommands);
            if (redacted != original && out == null) {
                out = new ArrayList<>(batch.subList(0, i));
            }
            if (out != null) {
                out.add(redacted);
            }
        }
        return out == null ? batch : out;
    }

    /** {@code measurement} with its settings' secrets removed; the same object when nothing changed. */
    public static Measurement redact(Measurement measurement, boolean keepCommands) {
        List<Measurement.Row> rows = measurement.rows();
        if (!carriesSettings(rows)) {
            return measurement;
        }
        var redacted = new ArrayList<Measurement.Row>(rows.size());
        boolean changed = false;
        for (Measurement.Row row : rows) {
            Measurement.Row shown = redact(row, keepCommands);
            changed |= shown != row;
            redacted.add(shown);
        }
        return changed ? new Measurement(measurement.source(), measurement.metric(), measurement.time(), redacted,
                measurement.tags()) : measurement;
    }

    /**
     * Rows of one result share their column names (and tag names): those are looked at once, so a
     * metric without settings costs a look at its names per batch, not per value.
     */
    private static boolean carriesSettings(List<Measurement.Row> rows) {
        RowValues.Columns seenColumns = null;
        RowTags seenTags = null;
        for (Measurement.Row row : rows) {
            if (row.values() instanceof RowValues values) {
                if (values.columns() != seenColumns) {
                    seenColumns = values.columns();
                    for (int i = 0; i < seenColumns.size(); i++) {
                        if (marksSettings(seenColumns.name(i), NAME_COLUMNS)) {
                            return true;
                        }
                    }
                }
            } else {
                for (String name : row.values().keySet()) {
                    if (marksSettings(name, NAME_COLUMNS)) {
                        return true;
                    }
                }
            }
            RowTags tags = (RowTags) row.tags();
            if (!tags.sharesNamesWith(seenTags)) {
                seenTags = tags;
                for (int i = 0; i < tags.size(); i++) {
                    if (marksSettings(tags.name(i), NAME_TAGS)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static boolean marksSettings(String name, List<String> nameKeys) {
        return nameKeys.contains(name) || holdsConnection(name) || holdsCommandOrSecret(name);
    }

    private static Measurement.Row redact(Measurement.Row row, boolean keepCommands) {
        String name = settingNamed(row);
        Described setting = name == null ? null : Described.of(name);
        Map<String, Object> values = values(row.values(), setting, keepCommands);
        Map<String, String> tags = tags((RowTags) row.tags(), setting, keepCommands);
        return values == row.values() && tags == row.tags() ? row : new Measurement.Row(values, tags);
    }

    /** The setting a row describes, or null when it names none. */
    private static String settingNamed(Measurement.Row row) {
        for (String tag : NAME_TAGS) {
            String name = row.tags().get(tag);
            if (name != null) {
                return name;
            }
        }
        for (String column : NAME_COLUMNS) {
            if (row.values().get(column) instanceof String name) {
                return name;
            }
        }
        return null;
    }

    /** What the setting whose value a column or tag holds says: the row's setting, else the key's own name. */
    private static Described settingOf(String key, Described rowSetting, List<String> nameKeys) {
        if (rowSetting != null && !DESCRIPTIVE.contains(key) && !nameKeys.contains(key)) {
            return rowSetting;
        }
        return holdsConnection(key) || holdsCommandOrSecret(key) ? Described.of(key) : null;
    }

    private static Map<String, Object> values(Map<String, Object> values, Described rowSetting, boolean keep) {
        if (values instanceof RowValues row) {
            RowValues.Columns columns = row.columns();
            Object[] copy = null;
            for (int i = 0; i < columns.size(); i++) {
                Object value = row.value(i);
                Object shown = shownValue(columns.name(i), value, rowSetting, keep);
                if (shown != value && copy == null) {
                    copy = new Object[columns.size()];
                    for (int j = 0; j < columns.size(); j++) {
                        copy[j] = row.value(j);
                    }
                }
                if (copy != null) {
                    copy[i] = shown;
                }
            }
            return copy == null ? values : new RowValues(columns, copy);
        }
        var copy = new LinkedHashMap<String, Object>(values.size() * 2);
        boolean[] changed = {false};
        values.forEach((name, value) -> {
            Object shown = shownValue(name, value, rowSetting, keep);
            changed[0] |= shown != value;
            copy.put(name, shown);
        });
        return changed[0] ? copy : values;
    }

    private static Object shownValue(String column, Object value, Described rowSetting, boolean keep) {
        if (!(value instanceof String text)) {
            return value;
        }
        Described setting = settingOf(column, rowSetting, NAME_COLUMNS);
        if (setting == null) {
            return value;
        }
        String shown = setting.shown(text, keep);
        return shown.equals(text) ? value : shown;
    }

    private static Map<String, String> tags(RowTags tags, Described rowSetting, boolean keep) {
        String[] values = null;
        for (int i = 0; i < tags.size(); i++) {
            String name = tags.name(i);
            String value = tags.value(i);
            Described setting = settingOf(name, rowSetting, NAME_TAGS);
            String shown = setting == null ? value : setting.shown(value, keep);
            if (!shown.equals(value) && values == null) {
                values = new String[tags.size()];
                for (int j = 0; j < tags.size(); j++) {
                    values[j] = tags.value(j);
                }
            }
            if (values != null) {
                values[i] = shown;
            }
        }
        if (values == null) {
            return tags;
        }
        String[] names = new String[tags.size()];
        for (int i = 0; i < names.length; i++) {
            names[i] = tags.name(i);
        }
        return RowTags.of(names, values, names.length);
    }
}

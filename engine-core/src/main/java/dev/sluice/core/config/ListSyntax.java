package dev.sluice.core.config;

import java.util.Arrays;
import java.util.List;

/**
 * The list syntax of every Sluice setting that takes names ({@code controls}, {@code partitions}, the Cassandra plugin's
 * {@code sluice.controls}, scenario lists): comma-separated, optionally in brackets as a properties file may write it,
 * blanks around items ignored. A blank value is the empty list; an empty item ({@code a,,b} or a trailing comma) is kept
 * as {@code ""}, for the caller to refuse: a name left out by mistake is not silently dropped. In {@code
 * dev.sluice.core.config} so that the Cassandra plugin's jar, which carries this package and not the RocksDB side of the
 * engine, shares it.
 */
public final class ListSyntax {
    private ListSyntax() {}

    public static List<String> split(String v) {
        String s = v.trim();
        if (s.startsWith("[") && s.endsWith("]")) {
            s = s.substring(1, s.length() - 1);
        }
        if (s.isBlank()) {
            return List.of();
        }
        // -1: a trailing comma ("admission,") is an empty item, refused as "admission,,adoc" is, not dropped
        return Arrays.stream(s.split(",", -1)).map(String::trim).toList();
    }
}

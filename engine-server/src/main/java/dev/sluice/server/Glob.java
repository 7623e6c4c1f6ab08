package dev.sluice.server;

/**
 * Redis' glob-style pattern matching (SCAN MATCH): {@code *}, {@code ?}, {@code [abc]}, {@code [^a-z]}, {@code \x}.
 *
 * <p>Every token but {@code *} matches exactly one byte, so one backtracking point suffices: on a mismatch the last
 * {@code *} takes one more byte and matching resumes after it. Time is O(pattern × key) and the stack is constant.
 * Until 2026-11-27 each {@code *} recursed over every remaining position, which is exponential in the number of stars
 * ({@code *a*a*a*a*a*a*a*a*a*a*b} against a long run of {@code a} did not finish; Redis' own recursive matcher had the
 * same flaw, CVE-2022-36021) and ran on the node's shared async pool, where a few such SCANs stalled every tenant.
 *
 * <p>Classes follow Redis' {@code stringmatchlen} (util.c) byte for byte, quirks included: {@code x-y} is a range
 * whenever two bytes follow {@code x}, even when the second is {@code ]}, so {@code [a-]} is the range {@code ]..a} and
 * the class goes on to the next {@code ]} (until 2026-11-27 Sluice read it as the members {@code a} and {@code -}); a
 * reversed range is swapped; {@code \} escapes the next byte; a class without its {@code ]} ends with the pattern.
 * Ranges compare bytes unsigned (key order), where Redis on x86 compares C's signed {@code char}: the two differ only
 * for ranges with one end below 0x80 and one above.
 */
final class Glob {
    private Glob() {}

    static boolean matches(byte[] p, byte[] s) {
        int pi = 0, si = 0;
        int starP = -1, starS = -1; // the pattern position after the last '*', and the key position it resumed at
        while (si < s.length) {
            if (pi < p.length && p[pi] == '*') {
                while (pi < p.length && p[pi] == '*') {
                    pi++;
                }
                if (pi == p.length) {
                    return true; // a trailing '*' matches the rest
                }
                starP = pi;
                starS = si;
                continue;
            }
            int next = pi < p.length ? step(p, pi, s[si]) : -1;
            if (next >= 0) {
                pi = next;
                si++;
            } else if (starP >= 0) {
                pi = starP; // the last '*' takes one more byte
                si = ++starS;
            } else {
                return false;
            }
        }
        while (pi < p.length && p[pi] == '*') {
            pi++;
        }
        return pi == p.length;
    }

    /**
     * Matches the token at {@code pi} (not a {@code *}) against one byte.
     *
     * @return the pattern position after the token, or -1 when it does not match
     */
    private static int step(byte[] p, int pi, byte b) {
        switch (p[pi]) {
            case '?' -> {
                return pi + 1;
            }
            case '[' -> {
                int i = pi + 1;
                boolean not = i < p.length && p[i] == '^';
                if (not) {
                    i++;
                }
                boolean hit = false;
                while (i < p.length && p[i] != ']') {
                    if (p[i] == '\\' && i + 1 < p.length) {
                        i++;
                        hit |= p[i] == b;
                        i++;
                    } else if (i + 2 < p.length && p[i + 1] == '-') {
                        int lo = p[i] & 0xff, hi = p[i + 2] & 0xff, x = b & 0xff;
                        if (lo > hi) {
                            int t = lo;
                            lo = hi;
                            hi = t;
                        }
                        hit |= x >= lo && x <= hi;
                        i += 3;
                    } else {
                        hit |= p[i] == b;
                        i++;
                    }
                }
                if (hit == not) {
                    return -1;
                }
                return i < p.length ? i + 1 : i; // an unterminated class ends with the pattern, as in Redis
            }
            case '\\' -> {
                int at = pi + 1 < p.length ? pi + 1 : pi; // a trailing backslash matches itself
                return p[at] == b ? at + 1 : -1;
            }
            default -> {
                return p[pi] == b ? pi + 1 : -1;
            }
        }
    }
}

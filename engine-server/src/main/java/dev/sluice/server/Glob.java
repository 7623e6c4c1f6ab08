package dev.sluice.server;

/** Redis' glob-style pattern matching (SCAN MATCH): {@code *}, {@code ?}, {@code [abc]}, {@code [^a-z]}, {@code \x}. */
final class Glob {
    private Glob() {}

    static boolean matches(byte[] pattern, byte[] s) {
        return match(pattern, 0, s, 0);
    }

    private static boolean match(byte[] p, int pi, byte[] s, int si) {
        while (pi < p.length) {
            byte c = p[pi];
            switch (c) {
                case '*' -> {
                    while (pi + 1 < p.length && p[pi + 1] == '*') {
                        pi++;
                    }
                    if (pi + 1 == p.length) {
                        return true;
                    }
                    for (int k = si; k <= s.length; k++) {
                        if (match(p, pi + 1, s, k)) {
                            return true;
                        }
                    }
                    return false;
                }
                case '?' -> {
                    if (si >= s.length) {
                        return false;
                    }
                    si++;
                    pi++;
                }
                case '[' -> {
                    if (si >= s.length) {
                        return false;
                    }
                    int i = pi + 1;
                    boolean not = i < p.length && p[i] == '^';
                    if (not) {
                        i++;
                    }
                    boolean hit = false;
                    while (i < p.length && p[i] != ']') {
                        if (p[i] == '\\' && i + 1 < p.length) {
                            i++;
                            hit |= p[i] == s[si];
                            i++;
                        } else if (i + 2 < p.length && p[i + 1] == '-' && p[i + 2] != ']') {
                            int lo = p[i] & 0xff, hi = p[i + 2] & 0xff, x = s[si] & 0xff;
                            if (lo > hi) {
                                int t = lo;
                                lo = hi;
                                hi = t;
                            }
                            hit |= x >= lo && x <= hi;
                            i += 3;
                        } else {
                            hit |= p[i] == s[si];
                            i++;
                        }
                    }
                    if (hit == not) {
                        return false;
                    }
                    pi = i < p.length ? i + 1 : i;
                    si++;
                }
                case '\\' -> {
                    if (pi + 1 < p.length) {
                        pi++;
                    }
                    if (si >= s.length || p[pi] != s[si]) {
                        return false;
                    }
                    pi++;
                    si++;
                }
                default -> {
                    if (si >= s.length || c != s[si]) {
                        return false;
                    }
                    pi++;
                    si++;
                }
            }
        }
        return si == s.length;
    }
}

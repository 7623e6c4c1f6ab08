package dev.sluice.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The capacity a {@code shape = capacity} phase is offered a share of: the named phase's mean, first window out. */
class CapacityResolutionTest {
    @Test
    void meanOfThePhaseWindowsWithoutTheColdFirstOne() {
        List<Results.Window> w = List.of(
                Results.Window.progress(0, "preload-ish", 50_000, null, null, null),
                Results.Window.progress(1, "cap", 100, null, null, null), // cold start: left out
                Results.Window.progress(2, "cap", 1_000, null, null, null),
                Results.Window.progress(3, "cap", 3_000, null, null, null),
                Results.Window.progress(4, "main", 9, null, null, null));
        assertThat(StackRunner.capacity(w, "cap")).isEqualTo(2_000);
        assertThat(StackRunner.capacity(w.subList(0, 2), "cap")).isEqualTo(100); // one window: it is all there is
        assertThatThrownBy(() -> StackRunner.capacity(w, "nope"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'nope'");
    }
}

package dev.sluice.compaction.adoc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.control.Action;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Whatever the tree does, ADOC keeps both knobs between their initial values and the maxima, and acts only at window ends. */
class AdocPropertiesTest {
    @Property(tries = 300)
    void knobsStayWithinTheirBounds(
            @ForAll @Size(min = 1, max = 120) List<@IntRange(min = 0, max = 7) Integer> script,
            @ForAll @IntRange(min = 1, max = 20) int maxJobs,
            @ForAll @IntRange(min = 1, max = 16) int maxBatchSteps,
            @ForAll @IntRange(min = 1, max = 3) int windowTicks) {
        long maxBatch = 64 * AdocTest.MB * maxBatchSteps;
        AdocTest.Tree t = new AdocTest.Tree().calm();
        Adoc c = new Adoc(
                new Adoc.Settings(windowTicks * AdocTest.SEC, maxJobs, maxBatch, 2, 64 * AdocTest.MB, 1, 0.9, 1, 1));
        assertThat(c.decide(AdocTest.node(t), t.now)).isEmpty();
        int ticks = 0;
        for (int bits : script) {
            // bit 0: L0O, bit 1: RDO, bit 2: MMO
            t.l0((bits & 1) != 0 ? 25 : 3)
                    .pending((bits & 2) != 0 ? 80L << 30 : 0)
                    .memtables((bits & 4) != 0 ? 0.95 : 0.2, (bits & 4) != 0 ? 1 : 0);
            List<Action> a = t.tick(c);
            ticks++;
            if (ticks % windowTicks != 0) {
                assertThat(a).as("no action inside a window").isEmpty();
            }
            assertThat(t.jobs).isBetween(2, Math.max(2, maxJobs));
            assertThat(t.batch).isBetween(64 * AdocTest.MB, Math.max(64 * AdocTest.MB, maxBatch));
            assertThat(a).allSatisfy(x -> assertThat(x.reason()).contains("ADOC §5"));
        }
    }
}

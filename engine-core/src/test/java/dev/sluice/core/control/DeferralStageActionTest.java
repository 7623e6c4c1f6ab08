package dev.sluice.core.control;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.base.Ticker;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Action.SetDeferralStage} on a real node: recorded as an event with its reason; an unknown partition fails. */
class DeferralStageActionTest {
    @TempDir
    Path dir;

    SluiceNode node;

    @BeforeEach
    void reset() {
        ScriptedLoopProvider.SCRIPTS.values().forEach(List::clear);
    }

    @AfterEach
    void close() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void aStageChangeIsAnEventNamingPartitionReasonAndStage() {
        node = Sluice.open(
                SluiceConfig.builder(dir)
                        .partitions("t1")
                        .controls("scripted-a")
                        .env("default")
                        .tickPeriod(Duration.ofSeconds(60))
                        .build(),
                new SimpleMeterRegistry(),
                Ticker.systemTicker());
        ScriptedLoopProvider.SCRIPTS
                .get("scripted-a")
                .add((s, t) -> List.of(
                        new Action.SetDeferralStage("t1", 2, "L0 12 files >= 60% of 20"),
                        new Action.SetDeferralStage("t9", 1, "no such partition")));
        List<ControlEvent> events = node.controlPlane().tickOnce();
        assertThat(events).hasSize(2);
        ControlEvent ok = events.get(0);
        assertThat(ok.outcome()).isEqualTo(ControlEvent.Outcome.APPLIED);
        assertThat(ok.partition()).isEqualTo("t1");
        assertThat(ok.knob()).isEqualTo("t1/deferral_stage");
        assertThat(ok.action()).isEqualTo("deferral_stage=2");
        assertThat(ok.reason()).isEqualTo("L0 12 files >= 60% of 20");
        ControlEvent bad = events.get(1);
        assertThat(bad.outcome()).isEqualTo(ControlEvent.Outcome.FAILED);
        assertThat(bad.detail()).contains("no partition 't9'");
    }
}

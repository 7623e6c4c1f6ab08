package dev.sluice.ycsb;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.htrace.core.HTraceConfiguration;
import org.apache.htrace.core.Tracer;
import site.ycsb.Client;
import site.ycsb.ClientThread;
import site.ycsb.DB;
import site.ycsb.DBFactory;
import site.ycsb.measurements.Measurements;
import site.ycsb.measurements.exporter.MeasurementsExporter;
import site.ycsb.workloads.CoreWorkload;

/**
 * Runs one YCSB phase in this JVM the way {@code site.ycsb.Client.main} does — same {@link CoreWorkload}, {@link
 * DBFactory} (which wraps the binding in YCSB's measuring {@code DBWrapper}), {@link ClientThread}s and {@link
 * Measurements} — minus the {@code System.exit}. Returns what the threads did and everything YCSB measured.
 */
final class YcsbHarness {
    private YcsbHarness() {}

    /** One phase's outcome: ops per thread (done vs assigned) and YCSB's measurements (metric → name → value). */
    record Phase(List<Integer> opsDone, List<Integer> opsAssigned, Map<String, Map<String, Number>> measurements) {
        long count(String metric, String name) {
            Number n = measurements.getOrDefault(metric, Map.of()).get(name);
            return n == null ? 0 : n.longValue();
        }

        long operations(String metric) {
            return count(metric, "Operations");
        }
    }

    /** The shipped workload file {@code name}, e.g. "workloada". */
    static Properties shippedWorkload(String name) throws IOException {
        Properties p = new Properties();
        try (InputStream in = YcsbHarness.class.getResourceAsStream("/workloads/" + name)) {
            if (in == null) {
                throw new IOException("no shipped workload " + name);
            }
            p.load(in);
        }
        return p;
    }

    static Phase run(Properties props, boolean load) throws Exception {
        resetMeasurements(); // Measurements is a JVM-wide singleton in YCSB; each phase starts from zero
        Measurements.setProperties(props);

        CoreWorkload workload = new CoreWorkload();
        workload.init(props);
        Tracer tracer = new Tracer.Builder("sluice-ycsb-test")
                .conf(HTraceConfiguration.fromMap(Map.of()))
                .build();

        int threads = Integer.parseInt(props.getProperty(Client.THREAD_COUNT_PROPERTY, "1"));
        int opcount = Integer.parseInt(
                load
                        ? props.getProperty(Client.RECORD_COUNT_PROPERTY)
                        : props.getProperty(Client.OPERATION_COUNT_PROPERTY));
        CountDownLatch done = new CountDownLatch(threads);
        List<ClientThread> clients = new ArrayList<>();
        List<Integer> assigned = new ArrayList<>();
        for (int id = 0; id < threads; id++) {
            DB db = DBFactory.newDB(SluiceClient.class.getName(), props, tracer);
            int mine = opcount / threads + (id < opcount % threads ? 1 : 0);
            ClientThread ct = new ClientThread(db, !load, workload, props, mine, -1, done);
            ct.setThreadId(id);
            ct.setThreadCount(threads);
            clients.add(ct);
            assigned.add(mine);
        }
        List<Thread> running = new ArrayList<>();
        for (ClientThread ct : clients) {
            Thread t = new Thread(ct, "ycsb-client-" + running.size());
            t.start();
            running.add(t);
        }
        for (Thread t : running) {
            t.join(TimeUnit.SECONDS.toMillis(60));
            if (t.isAlive()) {
                throw new AssertionError(t.getName() + " did not finish within 60 s");
            }
        }
        workload.cleanup();

        List<Integer> opsDone = new ArrayList<>();
        for (ClientThread ct : clients) {
            opsDone.add(ct.getOpsDone());
        }
        Capture capture = new Capture();
        Measurements.getMeasurements().exportMeasurements(capture);
        return new Phase(opsDone, assigned, capture.metrics);
    }

    private static void resetMeasurements() throws ReflectiveOperationException {
        Field singleton = Measurements.class.getDeclaredField("singleton");
        singleton.setAccessible(true);
        singleton.set(null, null);
    }

    /** A YCSB exporter that keeps every value, e.g. ("[READ]", "Return=OK") → 512. */
    static final class Capture implements MeasurementsExporter {
        final Map<String, Map<String, Number>> metrics = new TreeMap<>();

        private void put(String metric, String name, Number value) {
            metrics.computeIfAbsent(metric, k -> new TreeMap<>()).put(name, value);
        }

        @Override
        public void write(String metric, String name, int i) {
            put(metric, name, i);
        }

        @Override
        public void write(String metric, String name, long i) {
            put(metric, name, i);
        }

        @Override
        public void write(String metric, String name, double d) {
            put(metric, name, d);
        }

        @Override
        public void close() {}
    }
}

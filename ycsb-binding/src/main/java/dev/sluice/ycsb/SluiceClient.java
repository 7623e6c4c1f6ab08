package dev.sluice.ycsb;

import dev.sluice.core.KeyRange;
import dev.sluice.core.KeyValue;
import dev.sluice.core.Partition;
import dev.sluice.core.ScanIterator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.locks.ReentrantLock;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * YCSB binding for Sluice: {@code -db dev.sluice.ycsb.SluiceClient}. Properties: see {@link BindingProperties} and the
 * module README.
 *
 * <p><b>Data model.</b> A YCSB record (table, key, fields) is one engine entry: stored key = UTF-8(table) {@code 0x00}
 * UTF-8(key), stored value = the fields encoded by {@link RecordCodec}. Scans are confined to the table by the key
 * prefix; with several partitions, the per-partition scans are merged in key order.
 *
 * <p><b>Update</b> merges fields: it reads the record, replaces the given fields and writes it back. The read and the
 * write are made atomic with respect to every other insert/update/delete of this JVM by a per-key lock stripe (1024
 * stripes shared by all client threads), so concurrent updates of one record never lose each other's fields. The lock
 * does not extend beyond the JVM (RocksDB allows one process per store anyway). Reads take no lock: each read sees a
 * whole record as of some write.
 *
 * <p><b>Statuses.</b> OK, NOT_FOUND (read/update of an absent record), SERVICE_UNAVAILABLE (refused by admission
 * control, {@code OverloadedException}: nothing was written), FORBIDDEN (tenant quota exceeded), UNEXPECTED_STATE (a
 * stored value is not a valid record), BAD_REQUEST (e.g. key over the engine's limit, NUL in a table name), ERROR
 * (anything else; logged). The binding never throws from an operation.
 *
 * <p><b>Lifecycle.</b> One engine per JVM shared by all client threads: {@link #init()} opens it or joins the open one,
 * {@link #cleanup()} leaves it and the last one out closes it.
 *
 * <p>Thread-safety: like every YCSB DB, one instance per client thread.
 */
public class SluiceClient extends DB {
    private SharedNode shared;

    @Override
    public void init() throws DBException {
        if (shared != null) {
            throw new DBException("SluiceClient.init() called twice");
        }
        try {
            shared = SharedNode.acquire(BindingProperties.toSluiceConfig(getProperties(), Path.of("")));
        } catch (RuntimeException e) {
            throw new DBException("Sluice binding cannot start: " + e.getMessage(), e);
        }
    }

    @Override
    public void cleanup() throws DBException {
        SharedNode s = shared;
        shared = null;
        if (s != null) {
            try {
                s.release();
            } catch (RuntimeException e) {
                throw new DBException("Sluice binding: closing the engine failed: " + e.getMessage(), e);
            }
        }
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        try {
            byte[] k = storedKey(table, key);
            byte[] value = node().partitionFor(k).get(k);
            if (value == null) {
                return Status.NOT_FOUND;
            }
            putFields(RecordCodec.decode(value, fields), result);
            return Status.OK;
        } catch (RuntimeException e) {
            return node().statusFor(e, "read");
        }
    }

    @Override
    public Status scan(
            String table,
            String startkey,
            int recordcount,
            Set<String> fields,
            Vector<HashMap<String, ByteIterator>> result) {
        List<ScanIterator> open = new ArrayList<>();
        Status status;
        try {
            status = mergedScan(table, startkey, recordcount, fields, result, open);
        } catch (RuntimeException e) {
            status = node().statusFor(e, "scan");
        }
        for (ScanIterator it : open) {
            try {
                it.close();
            } catch (RuntimeException e) {
                Status closeStatus = node().statusFor(e, "scan (closing an iterator)");
                status = status.isOk() ? closeStatus : status;
            }
        }
        return status;
    }

    private Status mergedScan(
            String table,
            String startkey,
            int recordcount,
            Set<String> fields,
            Vector<HashMap<String, ByteIterator>> result,
            List<ScanIterator> open) {
        KeyRange range = KeyRange.closedOpen(storedKey(table, startkey), tableEnd(table));
        if (recordcount <= 0) {
            return Status.OK;
        }
        Partition[] partitions = node().partitions();
        // k-way merge of the partitions' ordered scans: an iterator is advanced only when its head is taken, so
        // about recordcount + partitions entries are read in total.
        PriorityQueue<Head> heads =
                new PriorityQueue<>(partitions.length, Comparator.comparing(h -> h.kv.key(), Arrays::compareUnsigned));
        for (Partition p : partitions) {
            ScanIterator it = p.scan(range);
            open.add(it);
            if (it.hasNext()) {
                heads.add(new Head(it.next(), it));
            }
        }
        int n = 0;
        while (n < recordcount && !heads.isEmpty()) {
            Head h = heads.poll();
            HashMap<String, ByteIterator> record = new HashMap<>();
            putFields(RecordCodec.decode(h.kv.value(), fields), record);
            result.add(record);
            n++;
            if (h.it.hasNext()) {
                heads.add(new Head(h.it.next(), h.it));
            }
        }
        return Status.OK;
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        try {
            byte[] k = storedKey(table, key);
            Map<String, byte[]> updates = toBytes(values);
            Partition p = node().partitionFor(k);
            ReentrantLock stripe = node().stripeFor(k);
            stripe.lock();
            try {
                byte[] stored = p.get(k);
                if (stored == null) {
                    return Status.NOT_FOUND;
                }
                p.put(k, RecordCodec.merge(stored, updates));
                return Status.OK;
            } finally {
                stripe.unlock();
            }
        } catch (RuntimeException e) {
            return node().statusFor(e, "update");
        }
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        try {
            byte[] k = storedKey(table, key);
            byte[] record = RecordCodec.encode(toBytes(values));
            Partition p = node().partitionFor(k);
            ReentrantLock stripe = node().stripeFor(k);
            stripe.lock(); // orders the blind write against a concurrent update's read-modify-write
            try {
                p.put(k, record);
            } finally {
                stripe.unlock();
            }
            return Status.OK;
        } catch (RuntimeException e) {
            return node().statusFor(e, "insert");
        }
    }

    @Override
    public Status delete(String table, String key) {
        try {
            byte[] k = storedKey(table, key);
            Partition p = node().partitionFor(k);
            ReentrantLock stripe = node().stripeFor(k);
            stripe.lock();
            try {
                p.delete(k);
            } finally {
                stripe.unlock();
            }
            return Status.OK;
        } catch (RuntimeException e) {
            return node().statusFor(e, "delete");
        }
    }

    private SharedNode node() {
        SharedNode s = shared;
        if (s == null) {
            throw new IllegalStateException("SluiceClient used before init() or after cleanup()");
        }
        return s;
    }

    /** UTF-8(table) 0x00 UTF-8(key). */
    static byte[] storedKey(String table, String key) {
        byte[] t = tableBytes(table);
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        byte[] out = Arrays.copyOf(t, t.length + 1 + k.length);
        System.arraycopy(k, 0, out, t.length + 1, k.length);
        return out;
    }

    /** The first key past every key of {@code table}: UTF-8(table) 0x01. */
    static byte[] tableEnd(String table) {
        byte[] t = tableBytes(table);
        byte[] out = Arrays.copyOf(t, t.length + 1);
        out[t.length] = 1;
        return out;
    }

    private static byte[] tableBytes(String table) {
        if (table == null || table.isEmpty() || table.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("table name must be non-empty and free of NUL characters");
        }
        return table.getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, byte[]> toBytes(Map<String, ByteIterator> values) {
        Map<String, byte[]> out = new LinkedHashMap<>(Math.max(4, values.size() * 2));
        for (Map.Entry<String, ByteIterator> e : values.entrySet()) {
            out.put(e.getKey(), e.getValue().toArray());
        }
        return out;
    }

    private static void putFields(Map<String, byte[]> fields, Map<String, ByteIterator> result) {
        for (Map.Entry<String, byte[]> e : fields.entrySet()) {
            result.put(e.getKey(), new ByteArrayByteIterator(e.getValue()));
        }
    }

    private record Head(KeyValue kv, ScanIterator it) {}
}

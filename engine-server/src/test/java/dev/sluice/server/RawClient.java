package dev.sluice.server;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;

/** A plain socket speaking raw bytes to the server, for frames no client library would send. */
final class RawClient implements AutoCloseable {
    final Socket socket;
    final InputStream in;
    final OutputStream out;

    RawClient(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(30_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    RawClient send(String s) throws IOException {
        out.write(s.getBytes(UTF_8));
        out.flush();
        return this;
    }

    RawClient send(byte[] b) throws IOException {
        out.write(b);
        out.flush();
        return this;
    }

    /** One line of the reply, without CRLF. */
    String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\r') {
                int n = in.read();
                if (n == '\n') {
                    break;
                }
                b.write(c);
                c = n;
            }
            b.write(c);
        }
        if (c == -1 && b.size() == 0) {
            return null;
        }
        return b.toString(UTF_8);
    }

    /** True when the server closed the connection (read returns end of stream). */
    boolean closedByServer() throws IOException {
        try {
            return in.read() == -1;
        } catch (java.net.SocketException e) {
            return true; // reset
        }
    }

    static String command(String... args) {
        StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            sb.append('$')
                    .append(a.getBytes(UTF_8).length)
                    .append("\r\n")
                    .append(a)
                    .append("\r\n");
        }
        return sb.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}

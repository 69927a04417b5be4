package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.RespConnection;
import io.pixquota.throttle.store.BucketGroup.GroupBucket;
import io.pixquota.throttle.store.BucketGroup.Take;
import io.pixquota.throttle.store.Limit;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * The adversarial test's ninth finding: a cold DictClient failed its first lookup on the 500 ms Redis timeout of a
 * busy machine. The first use of a script on a node (EVALSHA, NOSCRIPT, then the body) is not charged to the caller's
 * timeout: the body is sent within a timeout of its own. A proxy in front of a real Redis delays the first two script
 * commands (the call's EVALSHA and the first of its body's) by 60% of the timeout each: 120% in all.
 */
class ScriptFirstUseTest {
  private static final Duration TIMEOUT = Duration.ofMillis(500);

  @Test
  void theFirstCallOfABucketAndOfADictGroupPassesThoughItsScriptIsLoadedOnTheWay() throws Exception {
    try (PrivateRedisServer redis = PrivateRedisServer.start();
        DelayingProxy proxy = new DelayingProxy(redis.port(), TIMEOUT.toMillis() * 6 / 10)) {
      RedissonClient client = Redisson.create(io.pixquota.testing.TestRedis.redissonConfig(
          "redis://127.0.0.1:" + proxy.port()));
      try (RespConnection admin = redis.rawConnection()) {
        client.getKeys().count(); // the connection is open: what is measured is the script's first use
        RedisTokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(client),
            TokenBucketConfig.custom("first-use")
            .limit(8, 9).redisTimeout(TIMEOUT).build());
        assertThat(bucket.acquire(1, Duration.ZERO).granted()).as("EVALSHA, NOSCRIPT, the body: 1.2 x the timeout")
            .isTrue();
        RedisBucketGroup group = RedisBucketGroup.create(RedissonStore.of(client), "dict-first", "pq:", TIMEOUT);
        assertThat(group.acquire(List.of(new Take(new GroupBucket("u:a", Limit.of(100, 2 / 60.0)), 1, 1, false)),
            Duration.ZERO, List.of(), List.of()).granted()).as("the DICT group's script too").isTrue();
        assertThat(proxy.delayed.size()).as("NOSCRIPT met: more than one script command").isGreaterThan(2);
        assertThat(admin.call("PING")).isEqualTo("PONG");
      } finally {
        client.shutdown();
      }
    }
  }

  /** A TCP proxy to a local Redis that holds back the first two EVAL or EVALSHA commands for a while. */
  static final class DelayingProxy implements AutoCloseable {
    final List<String> delayed = new CopyOnWriteArrayList<>();
    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    DelayingProxy(int redisPort, long delayMs) throws IOException {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread accept = new Thread(() -> {
        while (!server.isClosed()) {
          try {
            Socket in = server.accept();
            Socket out = new Socket(InetAddress.getLoopbackAddress(), redisPort);
            sockets.add(in);
            sockets.add(out);
            pump(in.getInputStream(), out.getOutputStream(), delayMs);
            pump(out.getInputStream(), in.getOutputStream(), 0);
          } catch (IOException closed) {
            return;
          }
        }
      }, "delaying-proxy");
      accept.setDaemon(true);
      accept.start();
    }

    int port() {
      return server.getLocalPort();
    }

    private void pump(InputStream from, OutputStream to, long delayMs) {
      Thread t = new Thread(() -> {
        byte[] buffer = new byte[64 * 1024];
        try {
          int n;
          while ((n = from.read(buffer)) > 0) {
            String chunk = new String(buffer, 0, n, StandardCharsets.ISO_8859_1);
            boolean evalSha = chunk.contains("$7\r\nEVALSHA\r\n");
            if (delayMs > 0 && (evalSha || chunk.contains("$4\r\nEVAL\r\n"))) { // a command's start, not a body
              delayed.add(evalSha ? "EVALSHA" : "EVAL");
              if (delayed.size() <= 2) { // the script's first use: the call's EVALSHA, and what follows its NOSCRIPT
                Thread.sleep(delayMs);
              }
            }
            to.write(buffer, 0, n);
            to.flush();
          }
        } catch (IOException | InterruptedException closed) {
          // the other side went away: so does this pump
        }
      }, "delaying-proxy-pump");
      t.setDaemon(true);
      t.start();
    }

    @Override
    public void close() throws IOException {
      server.close();
      for (Socket s : sockets) {
        s.close();
      }
    }
  }
}

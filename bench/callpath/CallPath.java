import io.pixquota.bacen.dict.DictClient;
import io.pixquota.bacen.dict.DictClientConfig;
import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One warm getPix and one warm getEntry, each alone in its own JaCoCo execution data: run with the JaCoCo agent
 * ({@code output=none,includes=io.pixquota.*}) by bench/call-path-files.sh, against the mock BACEN in this JVM and
 * the Redis of REDIS_URL. Compiled against the public API only, so that it runs on the releases before and after a
 * change. Not part of the build.
 */
public final class CallPath {
  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    String redis = System.getenv().getOrDefault("REDIS_URL", "redis://127.0.0.1:6379");
    try (MockBacen mock = MockBacen.start(MockConfig.defaults());
        PixClient pix = PixClient.builder(PixClientConfig.builder().baseUrl(mock.pixUrl())
            .credentials("demo", "demo-secret").redisUrl(redis).bucketName("callpath-" + ProcessHandle.current().pid())
            .build()).build();
        DictClient dict = DictClient.builder(DictClientConfig.builder().baseUrl(mock.dictUrl())
            .participant("12345678").payerSecret("a-secret-of-the-psp-0001").redisUrl(redis)
            .keyPrefix("callpath" + ProcessHandle.current().pid() + ":").build()).build()) {
      String e2e = "E12345678202611301200ABCDEFGHIJK";
      for (int i = 0; i < 30; i++) { // warm: token, scripts, connections, classes
        pix.getPix(e2e);
        dict.getEntry("user" + (i % 20) + "@example.com", "1234567890" + (i % 10));
        Thread.sleep(150);
      }
      Object agent = Class.forName("org.jacoco.agent.rt.RT").getMethod("getAgent").invoke(null);
      agent.getClass().getMethod("reset").invoke(agent);
      pix.getPix(e2e);
      Files.write(out.resolve("pix.exec"), data(agent));
      Thread.sleep(1_500); // the DICT mirror's ledger flushes are not the lookup's
      agent.getClass().getMethod("reset").invoke(agent);
      dict.getEntry("user3@example.com", "12345678909");
      Files.write(out.resolve("dict.exec"), data(agent));
    }
  }

  private static byte[] data(Object agent) throws Exception {
    return (byte[]) agent.getClass().getMethod("getExecutionData", boolean.class).invoke(agent, false);
  }
}

package io.pixquota.harness;

import java.net.URI;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options every replica process takes, whoever starts it (the demo's {@code replica}, the benchmarks'
 * {@code peer-replica}): where the provider and Redis are, the integrator, the bucket. A picocli {@code @Mixin}.
 */
public final class ReplicaOptions {
  @Option(names = "--bacen-url", required = true,
      description = "The provider's root (the mock BACEN's): its OAuth2 token endpoint and /admin are below it.")
  public URI bacenUrl;

  @Option(names = "--pix-prefix", defaultValue = "/api/v2",
      description = "The path API Pix is served under on --bacen-url, as the mock's --pix-prefix (default "
          + "${DEFAULT-VALUE}).")
  public String pixPrefix;

  @Option(names = "--redis-url", description = "Redis of the shared bucket.")
  public String redisUrl;

  @Mixin
  public BucketOptions bucket;

  @Option(names = "--plan-jitter-ms", defaultValue = "0",
      description = "Read the provider's policy (GET /policies/pix) and use the QuotaPlanner's settings for this "
          + "jitter J instead of --capacity and --rate; 0 = off (default ${DEFAULT-VALUE}).")
  public long planJitterMs;

  @Option(names = "--bucket-name", defaultValue = "pix", description = "Shared bucket name (default ${DEFAULT-VALUE}).")
  public String bucketName;

  @Option(names = "--replica-id", defaultValue = "1",
      description = "This replica's number, 1..99 (default ${DEFAULT-VALUE}).")
  public int replicaId;

  @Option(names = "--client-id", defaultValue = "demo", description = "OAuth2 client id (default ${DEFAULT-VALUE}).")
  public String clientId;

  @Option(names = "--client-secret", defaultValue = "demo-secret",
      description = "OAuth2 client secret (default: the mock's demo secret).")
  public String clientSecret;

  /** Where API Pix is served: {@code --bacen-url} and {@code --pix-prefix}, ending in '/' (a client's base URL). */
  public URI pixUrl() {
    String prefix = pixPrefix.endsWith("/") ? pixPrefix : pixPrefix + "/";
    return bacenUrl.resolve(prefix.startsWith("/") ? prefix : "/" + prefix);
  }

  /** {@code r<id>}, as the replica names itself in READY, PROGRESS and RESULT. */
  public String id() {
    return "r" + replicaId;
  }

  /**
   * Checks what picocli cannot.
   *
   * @throws IllegalArgumentException naming the option
   */
  public void validate(boolean needsRedis) {
    if (replicaId < 1 || replicaId > 99) {
      throw new IllegalArgumentException("--replica-id must be within 1..99, but was " + replicaId);
    }
    if (needsRedis && redisUrl == null) {
      throw new IllegalArgumentException("--redis-url is required here");
    }
  }
}

package io.pixquota.bacen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pixquota.bacen.dict.DictClient;
import io.pixquota.bacen.dict.DictClientConfig;
import io.pixquota.bacen.dict.DictKey;
import io.pixquota.bacen.dict.DictLookup;
import io.pixquota.bacen.dict.DictPolicies;
import io.pixquota.bacen.dict.DictReserve;
import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.bacen.pix.TestEnv;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.Answering;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalBucketGroup;
import io.pixquota.throttle.store.LocalPermitPool;
import io.pixquota.throttle.store.LocalTokenBucket;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.QuotaHeaders;
import io.pixquota.throttle.store.RateAdaptation;
import io.pixquota.throttle.RedisUnavailablePolicy;
import io.pixquota.throttle.Match;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.support.RetryAfter;
import io.pixquota.throttle.okhttp.ThrottlingInterceptor;
import io.pixquota.throttle.plan.ProviderPolicy;
import io.pixquota.throttle.plan.QuotaPlanner;
import io.pixquota.throttle.redis.TokenBucketConfig;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import okhttp3.OkHttpClient;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed input, one row each, with its exact outcome: the exception type and message, before any I/O (none of
 * these rows needs Redis or a network), or for headers, how they are read.
 */
class BadInputTableTest {
  private static PixClientConfig fromEnv(Map<String, String> env) {
    return PixClientConfig.fromEnvironment(env);
  }

  private static Arguments row(String what, ThrowingCallable call, Class<? extends Throwable> type, String message) {
    return Arguments.of(what, call, type, message);
  }

  private static X509TrustManager defaultTrust() throws Exception {
    TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    f.init((java.security.KeyStore) null);
    return (X509TrustManager) f.getTrustManagers()[0];
  }

  private static LocalTokenBucket local(String name) {
    return new LocalTokenBucket(name, List.of(Limit.of(1, 1)), System::nanoTime);
  }

  private static PixClient.Builder pix() {
    return PixClient.builder(PixClientConfig.builder().baseUrl(URI.create("https://pix.example.com"))
        .credentials("id", "secret").build());
  }

  static Stream<Arguments> rows() {
    return Stream.of(
        row("PixClient: a given interceptor not on the given bucket", () -> pix().tokenBucket(local("a"))
            .throttlingInterceptor(ThrottlingInterceptor.of(Throttle.builder(local("b")).build())).build(),
            IllegalStateException.class, "the throttlingInterceptor does not book on the given tokenBucket 'a'"),
        row("PixClient: tls with an OkHttp client of your own", () -> pix().tokenBucket(local("a"))
            .okHttpClient(new OkHttpClient()).tls((SSLSocketFactory) SSLSocketFactory.getDefault(),
                defaultTrust()).build(), IllegalStateException.class,
            "tls is for the client PixClient makes; with your own okHttpClient, set its sslSocketFactory there"),
        row("capacity 0", () -> Limit.of(0, 1), IllegalArgumentException.class,
            "capacity must be positive and finite, but was 0.0"),
        row("capacity -1", () -> Limit.of(-1, 1), IllegalArgumentException.class,
            "capacity must be positive and finite, but was -1.0"),
        row("capacity NaN", () -> Limit.of(Double.NaN, 1), IllegalArgumentException.class,
            "capacity must be positive and finite, but was NaN"),
        row("capacity infinite", () -> Limit.of(Double.POSITIVE_INFINITY, 1), IllegalArgumentException.class,
            "capacity must be positive and finite, but was Infinity"),
        row("refill 0", () -> Limit.of(1, 0), IllegalArgumentException.class,
            "refillPerSecond must be positive and finite, but was 0.0"),
        row("refill -0.5", () -> Limit.of(1, -0.5), IllegalArgumentException.class,
            "refillPerSecond must be positive and finite, but was -0.5"),
        row("refill infinite", () -> Limit.of(1, Double.POSITIVE_INFINITY), IllegalArgumentException.class,
            "refillPerSecond must be positive and finite, but was Infinity"),
        row("bucket name null", () -> TokenBucketConfig.custom(null), NullPointerException.class,
            "name cannot be null"),
        row("bucket name empty", () -> TokenBucketConfig.custom(""), IllegalArgumentException.class,
            "name must not be blank, but was ''"),
        row("bucket name blank", () -> TokenBucketConfig.custom(" \t"), IllegalArgumentException.class,
            "name must not be blank, but was ' \t'"),
        row("bucket name with {", () -> TokenBucketConfig.custom("a{"), IllegalArgumentException.class,
            "name must not contain '{' or '}', but was 'a{'"),
        row("bucket name with }", () -> TokenBucketConfig.custom("}"), IllegalArgumentException.class,
            "name must not contain '{' or '}', but was '}'"),
        row("key prefix with braces", () -> TokenBucketConfig.custom("pix").keyPrefix("x{y}"),
            IllegalArgumentException.class, "keyPrefix must not contain '{' or '}', but was 'x{y}'"),
        row("key prefix null", () -> TokenBucketConfig.custom("pix").keyPrefix(null), NullPointerException.class,
            "keyPrefix cannot be null"),
        row("no limit", () -> TokenBucketConfig.custom("pix").build(), IllegalStateException.class,
            "bucket 'pix' needs at least one limit"),
        row("null limit", () -> TokenBucketConfig.custom("pix").limit(null), NullPointerException.class,
            "limit cannot be null"),
        row("redis timeout zero", () -> TokenBucketConfig.custom("pix").redisTimeout(Duration.ZERO),
            IllegalArgumentException.class, "redisTimeout must be > 0, but was PT0S"),
        row("redis timeout negative", () -> TokenBucketConfig.custom("pix").redisTimeout(Duration.ofMillis(-1)),
            IllegalArgumentException.class, "redisTimeout must be > 0, but was PT-0.001S"),
        row("redis timeout null", () -> TokenBucketConfig.custom("pix").redisTimeout(null),
            NullPointerException.class, "redisTimeout cannot be null"),
        row("client clock null", () -> TokenBucketConfig.custom("pix").clientClock(null),
            NullPointerException.class, "clientClock cannot be null"),
        row("provider limit 0", () -> ProviderPolicy.tokenBucket(0, 1, Duration.ofSeconds(1)),
            IllegalArgumentException.class, "limit must be positive and finite, but was 0.0"),
        row("provider period 0", () -> ProviderPolicy.slidingWindow(10, Duration.ZERO),
            IllegalArgumentException.class, "period must be > 0, but was PT0S"),
        row("provider kind null", () -> new ProviderPolicy(null, 1, 1, Duration.ofSeconds(1)),
            NullPointerException.class, "kind cannot be null"),
        row("plan jitter negative", () -> QuotaPlanner.plan(ProviderPolicy.tokenBucket(10, 10,
            Duration.ofSeconds(1)), Duration.ofMillis(-5)), IllegalArgumentException.class,
            "jitter must be >= 0, but was PT-0.005S"),
        row("plan replicas 0", () -> QuotaPlanner.plan(ProviderPolicy.tokenBucket(10, 10, Duration.ofSeconds(1)),
            Duration.ZERO, 0), IllegalArgumentException.class, "replicas must be >= 1, but was 0"),
        row("plan provider null", () -> QuotaPlanner.plan(null, Duration.ZERO), NullPointerException.class,
            "provider cannot be null"),
        row("env: base URL missing", () -> fromEnv(Map.of("BACEN_CLIENT_ID", "a",
            "BACEN_CLIENT_SECRET", "b")), IllegalArgumentException.class,
            "BACEN_BASE_URL must be set, but was missing"),
        row("env: base URL blank", () -> fromEnv(TestEnv.with("BACEN_BASE_URL", " ")),
            IllegalArgumentException.class, "BACEN_BASE_URL must be set, but was blank"),
        row("env: base URL ftp", () -> fromEnv(TestEnv.with("BACEN_BASE_URL", "ftp://x")),
            IllegalArgumentException.class,
            "BACEN_BASE_URL is invalid, was 'ftp://x': baseUrl must be http or https, but was 'ftp://x'"),
        row("env: base URL unparsable", () -> fromEnv(TestEnv.with("BACEN_BASE_URL",
            "https://pix example.com")), IllegalArgumentException.class,
            "BACEN_BASE_URL is invalid, was 'https://pix example.com': not a URL (Illegal character in authority)"),
        row("env: base URL without host", () -> fromEnv(TestEnv.with("BACEN_BASE_URL", "https:pix")),
            IllegalArgumentException.class,
            "BACEN_BASE_URL is invalid, was 'https:pix': baseUrl has no host: 'https:pix'"),
        row("env: token URL ftp", () -> fromEnv(TestEnv.with("BACEN_TOKEN_URL", "ftp://t")),
            IllegalArgumentException.class,
            "BACEN_TOKEN_URL is invalid, was 'ftp://t': tokenUrl must be http or https, but was 'ftp://t'"),
        row("env: token URL unparsable", () -> fromEnv(TestEnv.with("BACEN_TOKEN_URL", "https://auth example.com")),
            IllegalArgumentException.class,
            "BACEN_TOKEN_URL is invalid, was 'https://auth example.com': not a URL (Illegal character in authority)"),
        row("env: client id blank", () -> fromEnv(TestEnv.with("BACEN_CLIENT_ID", "")),
            IllegalArgumentException.class, "BACEN_CLIENT_ID must be set, but was blank"),
        row("pool name blank", () -> new LocalPermitPool(" ", 6, Duration.ofSeconds(30)),
            IllegalArgumentException.class, "pool name must not be blank, but was ' '"),
        row("pool name with {", () -> new LocalPermitPool("spi{x}", 6, Duration.ofSeconds(30)),
            IllegalArgumentException.class, "pool name must be at most 200 characters without '{', '}' or "
                + "whitespace, but was 'spi{x}'"),
        row("pool capacity 0", () -> new LocalPermitPool("spi", 0, Duration.ofSeconds(30)),
            IllegalArgumentException.class, "pool capacity must be within 1..100000, but was 0"),
        row("pool lease 0", () -> new LocalPermitPool("spi", 6, Duration.ZERO), IllegalArgumentException.class,
            "lease must be > 0, but was PT0S"),
        row("pool without the provider's timeout", () -> Throttle.builder(local("a")).rule(null, "/spi/.*",
            new LocalPermitPool("spi", 6, Duration.ofSeconds(5))).maxWait(Duration.ofSeconds(1)).build(),
            IllegalStateException.class, "rule /spi/.* holds permits of pool 'spi', but no providerTimeout was "
                + "given: how long the provider may keep working on a call after it was sent, which a permit must "
                + "outlast (ThrottleBuilder.providerTimeout)"),
        row("pool lease not above the max wait + the provider's timeout", () -> Throttle.builder(local("a"))
            .rule(null, "/spi/.*", new LocalPermitPool("spi", 6, Duration.ofSeconds(1))).maxWait(Duration.ofMillis(
                500)).providerTimeout(Duration.ofSeconds(3)).build(),
            IllegalStateException.class, "rule /spi/.*: pool 'spi' leases its permits for 1000 ms, not longer than "
                + "the max wait 500 ms plus the provider's timeout 3000 ms; a permit is held from the slot's booking "
                + "until the provider can no longer be working on the call, so a shorter lease would let the pool "
                + "give it to another call while the provider still counts it"),
        row("providerTimeout 0", () -> Throttle.builder(local("a")).providerTimeout(Duration.ZERO),
            IllegalArgumentException.class, "providerTimeout must be > 0, but was PT0S"),
        row("maxInFlight -1", () -> PixClientConfig.builder().maxInFlight(-1), IllegalArgumentException.class,
            "maxInFlight must be within 0..100000, but was -1"),
        row("permitLease not above maxWait + providerTimeout", () -> PixClientConfig.builder()
            .baseUrl(URI.create("https://pix.example.com")).credentials("id", "secret").maxInFlight(6)
            .maxWait(Duration.ofSeconds(10)).callTimeout(Duration.ofSeconds(12)).permitLease(Duration.ofSeconds(40))
            .build(), IllegalStateException.class, "permitLease 40000 ms must be longer than maxWait 10000 ms plus "
                + "providerTimeout 30000 ms: a permit is held from the slot's booking until the provider can no "
                + "longer be working on the call, and a live holder's must not end first"),
        row("env: provider timeout 0", () -> fromEnv(TestEnv.with("BACEN_PROVIDER_TIMEOUT_MS", "0")),
            IllegalArgumentException.class,
            "BACEN_PROVIDER_TIMEOUT_MS is invalid, was '0': providerTimeout must be > 0, but was PT0S"),
        row("env: max in flight text", () -> fromEnv(TestEnv.with("BACEN_MAX_IN_FLIGHT", "six")),
            IllegalArgumentException.class, "BACEN_MAX_IN_FLIGHT must be a whole number, but was 'six'"),
        row("env: max in flight above 100000", () -> fromEnv(TestEnv.with("BACEN_MAX_IN_FLIGHT", "100001")),
            IllegalArgumentException.class,
            "BACEN_MAX_IN_FLIGHT is invalid, was '100001': maxInFlight must be within 0..100000, but was 100001"),
        row("env: permit lease 0", () -> fromEnv(TestEnv.with("BACEN_MAX_IN_FLIGHT", "6", "BACEN_PERMIT_LEASE_MS",
            "0")), IllegalArgumentException.class,
            "BACEN_PERMIT_LEASE_MS is invalid, was '0': permitLease must be > 0, but was PT0S"),
        row("env: quota headers unknown", () -> fromEnv(TestEnv.with("BACEN_QUOTA_HEADERS", "github")),
            IllegalArgumentException.class,
            "BACEN_QUOTA_HEADERS is invalid, was 'github': must be IETF or X_RATELIMIT"),
        row("env: capacity text", () -> fromEnv(TestEnv.with("BACEN_BUCKET_CAPACITY", "ten")),
            IllegalArgumentException.class, "BACEN_BUCKET_CAPACITY must be a number, but was 'ten'"),
        row("env: capacity negative", () -> fromEnv(TestEnv.with("BACEN_BUCKET_CAPACITY", "-3")),
            IllegalArgumentException.class,
            "BACEN_BUCKET_CAPACITY is invalid, was '-3': capacity must be positive and finite, but was -3.0"),
        row("env: rate zero", () -> fromEnv(TestEnv.with("BACEN_BUCKET_RATE", "0")),
            IllegalArgumentException.class,
            "BACEN_BUCKET_RATE is invalid, was '0': refillPerSecond must be positive and finite, but was 0.0"),
        row("env: rate NaN", () -> fromEnv(TestEnv.with("BACEN_BUCKET_RATE", "NaN")),
            IllegalArgumentException.class,
            "BACEN_BUCKET_RATE is invalid, was 'NaN': refillPerSecond must be positive and finite, but was NaN"),
        row("env: max wait negative", () -> fromEnv(TestEnv.with("BACEN_MAX_WAIT_MS", "-1")),
            IllegalArgumentException.class, "BACEN_MAX_WAIT_MS is invalid, was '-1': maxWait must be >= 0, but was "
                + "PT-0.001S"),
        row("env: max wait with unit", () -> fromEnv(TestEnv.with("BACEN_MAX_WAIT_MS", "5s")),
            IllegalArgumentException.class, "BACEN_MAX_WAIT_MS must be a whole number of milliseconds, but was '5s'"),
        row("env: call timeout 0", () -> fromEnv(TestEnv.with("BACEN_CALL_TIMEOUT_MS", "0")),
            IllegalArgumentException.class,
            "BACEN_CALL_TIMEOUT_MS is invalid, was '0': callTimeout must be > 0, but was PT0S"),
        row("env: redis timeout text", () -> fromEnv(TestEnv.with("BACEN_REDIS_TIMEOUT_MS", "x")),
            IllegalArgumentException.class,
            "BACEN_REDIS_TIMEOUT_MS must be a whole number of milliseconds, but was 'x'"),
        row("env: attempts 0", () -> fromEnv(TestEnv.with("BACEN_RETRY_MAX_ATTEMPTS", "0")),
            IllegalArgumentException.class,
            "BACEN_RETRY_MAX_ATTEMPTS is invalid, was '0': maxAttempts must be within 1..20, but was 0"),
        row("env: attempts 2.5", () -> fromEnv(TestEnv.with("BACEN_RETRY_MAX_ATTEMPTS", "2.5")),
            IllegalArgumentException.class, "BACEN_RETRY_MAX_ATTEMPTS must be a whole number, but was '2.5'"),
        row("env: attempts 99", () -> fromEnv(TestEnv.with("BACEN_RETRY_MAX_ATTEMPTS", "99")),
            IllegalArgumentException.class,
            "BACEN_RETRY_MAX_ATTEMPTS is invalid, was '99': maxAttempts must be within 1..20, but was 99"),
        row("env: max backoff below initial", () -> fromEnv(TestEnv.with(
            "BACEN_RETRY_INITIAL_BACKOFF_MS", "500", "BACEN_RETRY_MAX_BACKOFF_MS", "100")),
            IllegalArgumentException.class,
            "BACEN_RETRY_*_MS is invalid: maxBackoff must be >= initialBackoff PT0.5S, but was PT0.1S"),
        row("env: policy unknown", () -> fromEnv(TestEnv.with("BACEN_REDIS_UNAVAILABLE", "OPEN")),
            IllegalArgumentException.class,
            "BACEN_REDIS_UNAVAILABLE must be FAIL_CLOSED or LOCAL_FALLBACK, but was 'OPEN'"),
        row("env: local share 0", () -> fromEnv(TestEnv.with("BACEN_LOCAL_SHARE", "0")),
            IllegalArgumentException.class,
            "BACEN_LOCAL_SHARE is invalid, was '0': localShare must be > 0 and <= 1, but was 0.0"),
        row("env: local share 2", () -> fromEnv(TestEnv.with("BACEN_LOCAL_SHARE", "2")),
            IllegalArgumentException.class,
            "BACEN_LOCAL_SHARE is invalid, was '2': localShare must be > 0 and <= 1, but was 2.0"),
        row("env: redis URL http with password", () -> fromEnv(TestEnv.with("REDIS_URL",
            "http://u:hunter2@r:6379")), IllegalArgumentException.class,
            "REDIS_URL is invalid, was 'http://****@r:6379': redisUrl must start with redis://, rediss://, "
                + "redis-sentinel:// or redis-cluster://: 'http://****@r:6379'"),
        row("env: redis URL database not a number", () -> fromEnv(TestEnv.with("REDIS_URL",
            "redis://:pw@r:6379/x")), IllegalArgumentException.class,
            "REDIS_URL is invalid, was 'redis://****@r:6379/x': redisUrl database must be a whole number >= 0, but "
                + "was 'x': 'redis://****@r:6379/x'"),
        row("env: redis URL without host", () -> fromEnv(TestEnv.with("REDIS_URL", "redis:///0")),
            IllegalArgumentException.class, "REDIS_URL is invalid, was 'redis:///0': redisUrl has no host: "
                + "'redis:///0'"),
        row("env: redis URL with two hosts", () -> fromEnv(TestEnv.with("REDIS_URL", "redis://h1,h2")),
            IllegalArgumentException.class, "REDIS_URL is invalid, was 'redis://h1,h2': redisUrl names 2 hosts; for "
                + "several, use redis-sentinel:// or redis-cluster://: 'redis://h1,h2'"),
        row("env: sentinel URL without a master name", () -> fromEnv(TestEnv.with("REDIS_URL",
            "redis-sentinel://s1:26379,s2:26379")), IllegalArgumentException.class,
            "REDIS_URL is invalid, was 'redis-sentinel://s1:26379,s2:26379': redisUrl has no master name "
                + "(redis-sentinel://host:port,.../MASTER_NAME): 'redis-sentinel://s1:26379,s2:26379'"),
        row("env: cluster URL with a database", () -> fromEnv(TestEnv.with("REDIS_URL",
            "redis-cluster://c1:7000,c2:7001/2")), IllegalArgumentException.class,
            "REDIS_URL is invalid, was 'redis-cluster://c1:7000,c2:7001/2': redisUrl has a path, but a cluster has no "
                + "database index: 'redis-cluster://c1:7000,c2:7001/2'"),
        row("env: redis URL with a bad port", () -> fromEnv(TestEnv.with("REDIS_URL", "redis-cluster://c1:70000")),
            IllegalArgumentException.class, "REDIS_URL is invalid, was 'redis-cluster://c1:70000': redisUrl port must "
                + "be within 1..65535, but was '70000': 'redis-cluster://c1:70000'"),
        row("env: bucket name with braces", () -> fromEnv(TestEnv.with("BACEN_BUCKET_NAME", "a{b}")),
            IllegalArgumentException.class, "BACEN_BUCKET_NAME is invalid, was 'a{b}': name must not contain '{' or "
                + "'}', but was 'a{b}'"),
        row("env: bucket name blank", () -> fromEnv(TestEnv.with("BACEN_BUCKET_NAME", " ")),
            IllegalArgumentException.class, "BACEN_BUCKET_NAME is invalid, was ' ': bucketName must not be blank, "
                + "but was ''"),
        row("config: no base URL", () -> PixClientConfig.builder().credentials("a", "b").build(),
            IllegalStateException.class, "baseUrl is required"),
        row("config: no credentials", () -> PixClientConfig.builder().baseUrl(URI.create("https://x"))
            .build(), IllegalStateException.class, "credentials are required"),
        row("config: secret blank", () -> PixClientConfig.builder().credentials("a", " "),
            IllegalArgumentException.class, "clientSecret must not be blank"),
        row("config: secret null", () -> PixClientConfig.builder().credentials("a", null),
            NullPointerException.class, "clientSecret cannot be null"),
        row("interceptor: late limit negative", () -> Throttle.builder(new NoBucket())
            .lateLimit(Duration.ofMillis(-1)), IllegalArgumentException.class,
            "lateLimit must be >= 0, but was PT-0.001S"),
        row("interceptor: response status 600", () -> Throttle.builder(new NoBucket())
            .responseCost(600, 1), IllegalArgumentException.class, "status must be within 100..599, but was 600"),
        row("interceptor: response cost NaN", () -> Throttle.builder(new NoBucket())
            .responseCost(404, Double.NaN), IllegalArgumentException.class,
            "totalCost must be positive and finite, but was NaN"),
        row("interceptor: fallback retry interval 0", () -> Throttle.builder(new NoBucket())
            .redisUnavailable(RedisUnavailablePolicy.LOCAL_FALLBACK, 0.5, Duration.ZERO),
            IllegalArgumentException.class, "retryInterval must be > 0, but was PT0S"),
        row("local bucket without limits", () -> new LocalTokenBucket("x", List.of(), System::nanoTime),
            IllegalArgumentException.class, "bucket 'x' needs at least one limit"),
        row("interceptor: default bucket smaller than a call", () -> ThrottlingInterceptor.of(Throttle.builder(
            new LocalTokenBucket("small", List.of(Limit.of(0.5, 1)), System::nanoTime)).build()),
            IllegalStateException.class, "requests no rule matches costs 1.0, more than bucket 'small' can ever hold "
                + "(capacity 0.5): no such call could be admitted"),
        row("interceptor: rule cost above its bucket", () -> ThrottlingInterceptor.of(Throttle.builder(new NoBucket())
            .rule("POST", "/x", new LocalTokenBucket("b", List.of(Limit.of(2, 1)), System::nanoTime), 2.5).build()),
            IllegalStateException.class, "rule POST /x costs 2.5, more than bucket 'b' can ever hold (capacity 2.0): "
                + "no such call could be admitted"),
        row("interceptor: max wait of centuries", () -> Throttle.builder(new NoBucket())
            .maxWait(Duration.ofDays(36_500)), IllegalArgumentException.class,
            "maxWait must be at most PT24H, but was PT876000H"),
        row("config: bucket capacity below one call", () -> PixClientConfig.builder().bucket(0.5, 9),
            IllegalArgumentException.class, "capacity must be >= 1, the cost of one call, but was 0.5"),
        row("env: bucket capacity below one call", () -> fromEnv(TestEnv.with("BACEN_BUCKET_CAPACITY", "0.5")),
            IllegalArgumentException.class, "BACEN_BUCKET_CAPACITY is invalid, was '0.5': capacity must be >= 1, the "
                + "cost of one call, but was 0.5"),
        row("config: max wait above the call timeout", () -> PixClientConfig.builder()
            .baseUrl(URI.create("https://pix.example.com")).credentials("id", "secret").maxWait(Duration.ofSeconds(60))
            .build(), IllegalStateException.class, "maxWait 60000 ms must be shorter than callTimeout 30000 ms: the "
                + "call timeout counts the wait for the slot, so calls would be refused after 30000 ms; raise "
                + "callTimeout above maxWait plus the provider's answer time"),
        row("env: max wait above the call timeout", () -> fromEnv(TestEnv.with("BACEN_MAX_WAIT_MS", "60000")),
            IllegalStateException.class, "BACEN_MAX_WAIT_MS and BACEN_CALL_TIMEOUT_MS disagree: maxWait 60000 ms "
                + "must be shorter than callTimeout 30000 ms: the call timeout counts the wait for the slot, so calls "
                + "would be refused after 30000 ms; raise callTimeout above maxWait plus the provider's answer time"),
        row("config: call timeout of centuries", () -> PixClientConfig.builder()
            .callTimeout(Duration.ofSeconds(Long.MAX_VALUE)), IllegalArgumentException.class,
            "callTimeout must be at most PT24H, but was PT2562047788015215H30M7S"),
        row("config: redis timeout of centuries", () -> PixClientConfig.builder()
            .redisTimeout(Duration.ofSeconds(Long.MAX_VALUE)), IllegalArgumentException.class,
            "redisTimeout must be at most PT24H, but was PT2562047788015215H30M7S"),
        row("bucket: redis timeout of centuries", () -> TokenBucketConfig.custom("pix")
            .redisTimeout(Duration.ofSeconds(Long.MAX_VALUE)), IllegalArgumentException.class,
            "redisTimeout must be at most PT24H, but was PT2562047788015215H30M7S"),
        row("bucket: configuration lease 0", () -> TokenBucketConfig.custom("pix")
            .configurationLease(Duration.ZERO), IllegalArgumentException.class,
            "configurationLease must be > 0, but was PT0S"),
        row("rate adaptation: decrease 1", () -> new RateAdaptation(1, 0.005, 0.25),
            IllegalArgumentException.class, "decrease must be within (0, 1), but was 1.0"),
        row("rate adaptation: increase 0", () -> new RateAdaptation(0.85, 0, 0.25),
            IllegalArgumentException.class, "increasePerSecond must be within (0, 1], but was 0.0"),
        row("rate adaptation: floor NaN", () -> new RateAdaptation(0.85, 0.005, Double.NaN),
            IllegalArgumentException.class, "floor must be within (0, 1], but was NaN"),
        row("config: configuration lease of centuries", () -> PixClientConfig.builder()
            .configurationLease(Duration.ofDays(36_500)), IllegalArgumentException.class,
            "configurationLease must be at most PT5M (the fleet's bound: a stale setting may not outlive its replica "
                + "longer), but was PT876000H"),
        row("bucket: configuration lease of a day", () -> TokenBucketConfig.custom("pix")
            .configurationLease(Duration.ofDays(1)), IllegalArgumentException.class,
            "configurationLease must be at most PT5M (the fleet's bound: a stale setting may not outlive its replica "
                + "longer), but was PT24H"),
        row("config: a quota signal that is no header name", () -> PixClientConfig.builder()
            .quotaSignal("Rate Limit"), IllegalArgumentException.class,
            "quotaSignal must be an HTTP header name, but was 'Rate Limit'"),
        row("env: a quota signal that is no header name", () -> fromEnv(TestEnv.with("BACEN_QUOTA_SIGNAL",
            "RateLimit:")), IllegalArgumentException.class, "BACEN_QUOTA_SIGNAL is invalid, was 'RateLimit:': "
                + "quotaSignal must be an HTTP header name, but was 'RateLimit:'"),
        row("interceptor: a blank quota signal", () -> Throttle.builder(new NoBucket())
            .quotaSignal(" "), IllegalArgumentException.class, "quotaSignal must not be blank, but was ' '"),
        row("rate adaptation: a provider hold of a day", () -> RateAdaptation.defaults()
            .withMaxProviderHold(Duration.ofDays(1)), IllegalArgumentException.class,
            "maxProviderHold must be at most PT1H, but was PT24H"),
        row("rate adaptation: a negative lone recovery", () -> RateAdaptation.defaults()
            .withLoneCutRecovery(Duration.ofSeconds(-1)), IllegalArgumentException.class,
            "loneCutRecovery must be >= 0, but was PT-1S"),
        row("env: configuration lease text", () -> fromEnv(TestEnv.with("BACEN_CONFIGURATION_LEASE_MS", "30s")),
            IllegalArgumentException.class,
            "BACEN_CONFIGURATION_LEASE_MS must be a whole number of milliseconds, but was '30s'"),
        row("env: configuration lease 0", () -> fromEnv(TestEnv.with("BACEN_CONFIGURATION_LEASE_MS", "0")),
            IllegalArgumentException.class,
            "BACEN_CONFIGURATION_LEASE_MS is invalid, was '0': configurationLease must be > 0, but was PT0S"),
        row("env: rate adaptation maybe", () -> fromEnv(TestEnv.with("BACEN_RATE_ADAPTATION", "maybe")),
            IllegalArgumentException.class, "BACEN_RATE_ADAPTATION is invalid, was 'maybe': must be on or off"),
        row("env: default priority urgent", () -> fromEnv(TestEnv.with("BACEN_DEFAULT_PRIORITY", "urgent")),
            IllegalArgumentException.class,
            "BACEN_DEFAULT_PRIORITY is invalid, was 'urgent': must be INTERACTIVE or BATCH"),
        row("env: batch horizon -1", () -> fromEnv(TestEnv.with("BACEN_BATCH_HORIZON_MS", "-1")),
            IllegalArgumentException.class,
            "BACEN_BATCH_HORIZON_MS is invalid, was '-1': batchHorizon must be >= 0, but was PT-0.001S"),
        row("env: batch horizon 1.5", () -> fromEnv(TestEnv.with("BACEN_BATCH_HORIZON_MS", "1.5")),
            IllegalArgumentException.class,
            "BACEN_BATCH_HORIZON_MS must be a whole number of milliseconds, but was '1.5'"),
        row("config: default priority null", () -> PixClientConfig.builder().defaultPriority(null),
            NullPointerException.class, "defaultPriority cannot be null"),
        row("interceptor: batch horizon of centuries", () -> Throttle.builder(new NoBucket())
            .horizon(Priority.BATCH, Duration.ofDays(36_500)), IllegalArgumentException.class,
            "horizon of BATCH must be at most PT24H, but was PT876000H"),
        row("refill of Double.MIN_VALUE", () -> Limit.of(8, Double.MIN_VALUE), IllegalArgumentException.class,
            "refillPerSecond must be at least 1.0E-6 (one token in 11.6 days), but was 4.9E-324"),
        row("capacity of 1e13", () -> Limit.of(1e13, 1), IllegalArgumentException.class,
            "capacity must be at most 1.0E12, but was 1.0E13"),
        row("plan jitter of centuries", () -> QuotaPlanner.plan(ProviderPolicy.tokenBucket(10, 10,
            Duration.ofSeconds(1)), Duration.ofSeconds(Long.MAX_VALUE)), IllegalArgumentException.class,
            "jitter must be at most PT24H, but was PT2562047788015215H30M7S"),
        row("interceptor: bad path regex", () -> Throttle.builder(new NoBucket())
            .rule("GET", "(", new NoBucket(), 1), IllegalArgumentException.class,
            "path must be a regular expression, but was '(': Unclosed group"),
        row("quota: a host with a scheme", () -> Match.host("https://pix.example.com"), IllegalArgumentException.class,
            "host must be a host name or address without scheme, port or path, but was 'https://pix.example.com'"),
        row("quota: a name twice", () -> Throttle.builder().quota("pix", Match.any(), new NoBucket(), 1)
            .quota("pix", Match.any(), new NoBucket(), 1), IllegalArgumentException.class,
            "quota name must be unique, but 'pix' was given twice"));
  }

  /** A bucket for builder rows: never called. */
  private static final class NoBucket implements TokenBucket {
    @Override
    public String name() {
      return "none";
    }

    @Override
    public List<Limit> limits() {
      return List.of(Limit.of(1, 1));
    }

    @Override
    public Acquisition acquire(double cost, Duration maxWait) {
      throw new AssertionError("no I/O expected");
    }

    @Override
    public double charge(double cost) {
      throw new AssertionError("no I/O expected");
    }

    @Override
    public double refund(double cost) {
      throw new AssertionError("no I/O expected");
    }
  }

  private static Map<String, String> dictEnv(String... pairs) {
    Map<String, String> env = new java.util.HashMap<>(Map.of("DICT_BASE_URL", "https://dict.example.com",
        "DICT_PARTICIPANT", "12345678", "DICT_PAYER_SECRET", "a-secret-of-the-psp-0001"));
    for (int i = 0; i < pairs.length; i += 2) {
      if (pairs[i + 1] == null) {
        env.remove(pairs[i]);
      } else {
        env.put(pairs[i], pairs[i + 1]);
      }
    }
    return env;
  }

  /** A DICT client on an in-memory mirror and an address nothing listens on: a row that reached I/O would fail. */
  private static DictClient dict() {
    return DictClient.builder(DictClientConfig.builder().baseUrl(URI.create("http://127.0.0.1:9"))
        .participant("12345678").payerSecret("a-secret-of-the-psp-0001").build())
        .bucketGroup(new LocalBucketGroup("dict", System::nanoTime)).build();
  }

  static Stream<Arguments> dictRows() {
    return Stream.of(
        row("DICT key: CPF with wrong check digits", () -> DictKey.parse("12345678900"),
            IllegalArgumentException.class, "key has 11 digits but is not a CPF: its check digits are wrong"),
        row("DICT key: CNPJ with wrong check digits", () -> DictKey.parse("11222333000180"),
            IllegalArgumentException.class, "key has 14 digits but is not a CNPJ: its check digits are wrong"),
        row("DICT key: phone without +", () -> DictKey.parse("5561999990001"), IllegalArgumentException.class,
            "key is not a CPF, a CNPJ, a phone (+E.164), an e-mail or an EVP (UUID)"),
        row("DICT key: phone too short", () -> DictKey.parse("+5561"), IllegalArgumentException.class,
            "key looks like a phone but is not E.164 (+ and 8 to 15 digits)"),
        row("DICT key: e-mail in upper case", () -> DictKey.parse("Maria@Example.com"),
            IllegalArgumentException.class,
            "key looks like an e-mail but is not one DICT accepts (lower case, local@domain.tld)"),
        row("DICT key: 78 characters", () -> DictKey.parse("a".repeat(66) + "@example.com"),
            IllegalArgumentException.class, "key must be 1 to 77 characters, but was 78"),
        row("DICT key: EVP in upper case", () -> DictKey.parse("123E4567-E89B-12D3-A456-426614174000"),
            IllegalArgumentException.class,
            "key is not a CPF, a CNPJ, a phone (+E.164), an e-mail or an EVP (UUID)"),
        row("DICT key: null", () -> DictKey.parse(null), NullPointerException.class, "key cannot be null"),
        row("DICT lookup: malformed key, before any I/O", () -> dict().getEntry("not a key", "12345678909"),
            IllegalArgumentException.class,
            "key is not a CPF, a CNPJ, a phone (+E.164), an e-mail or an EVP (UUID)"),
        row("DICT lookup: blank payer id", () -> dict().getEntry("maria@example.com", " "),
            IllegalArgumentException.class, "payerId must not be blank"),
        row("DICT lookup: payer id of 257 characters", () -> dict().getEntry("maria@example.com", "x".repeat(257)),
            IllegalArgumentException.class, "payerId must be at most 256 characters, but had 257"),
        row("DICT lookup: malformed end-to-end id", () -> dict().getEntry(DictLookup.of("maria@example.com",
            "12345678909").withEndToEndId("E123456782026")), IllegalArgumentException.class,
            "endToEndId must be E + ISPB (8) + yyyyMMddHHmm + 11 letters or digits, but was 'E12345678...' (13 "
                + "characters)"),
        row("DICT settlement: malformed end-to-end id", () -> dict().paymentSettled("nope"),
            IllegalArgumentException.class, "endToEndId must be E + ISPB (8) + yyyyMMddHHmm + 11 letters or digits, "
                + "but was 'nope...' (4 characters)"),
        row("DICT config: participant secret missing", () -> DictClientConfig.builder()
            .baseUrl(URI.create("https://dict.example.com")).participant("12345678").build(),
            IllegalStateException.class, "payerSecret is required: PI-PayerId is pseudonymised with it"),
        row("DICT config: participant secret too short", () -> DictClientConfig.builder().payerSecret("short"),
            IllegalArgumentException.class, "payerSecret must be at least 16 characters, but had 5"),
        row("DICT config: ISPB of 7 digits", () -> DictClientConfig.builder().participant("1234567"),
            IllegalArgumentException.class, "participant must be the 8-digit ISPB, but was '1234567'"),
        row("DICT config: unknown policy", () -> DictClientConfig.builder().policy("ENTRIES_WRITE", 10, 1,
            Duration.ofMinutes(1)), IllegalArgumentException.class, "no DICT policy 'ENTRIES_WRITE' in the v1.2.0 "
                + "table; it has [ENTRIES_READ_USER_ANTISCAN, ENTRIES_READ_PARTICIPANT_ANTISCAN, ENTRIES_READ]"),
        row("DICT config: unknown category", () -> DictPolicies.parse("later:Z"), IllegalArgumentException.class,
            "DICT policies must be v1.2.0 or later:<category A..H>, but was 'later:Z'"),
        row("DICT config: maxWait not below callTimeout", () -> DictClientConfig.builder()
            .baseUrl(URI.create("https://dict.example.com")).participant("12345678")
            .payerSecret("a-secret-of-the-psp-0001").maxWait(Duration.ofSeconds(10)).build(),
            IllegalStateException.class, "maxWait 10000 ms must be shorter than callTimeout 10000 ms, which counts "
                + "the wait"),
        row("DICT env: secret missing", () -> DictClientConfig.fromEnvironment(dictEnv("DICT_PAYER_SECRET", null)),
            IllegalArgumentException.class, "DICT_PAYER_SECRET is required"),
        row("DICT env: secret too short, not echoed", () -> DictClientConfig.fromEnvironment(dictEnv(
            "DICT_PAYER_SECRET", "hunter2")), IllegalArgumentException.class,
            "DICT_PAYER_SECRET is invalid: payerSecret must be at least 16 characters, but had 7"),
        row("DICT env: unknown table", () -> DictClientConfig.fromEnvironment(dictEnv("DICT_POLICIES", "v9")),
            IllegalArgumentException.class, "DICT_POLICIES is invalid ('v9'): DICT policies must be v1.2.0 or "
                + "later:<category A..H>, but was 'v9'"),
        row("DICT env: unknown policy in the sizes", () -> DictClientConfig.fromEnvironment(dictEnv(
            "DICT_POLICY_SIZES", "ENTRIES_READX=10/1/60")), IllegalArgumentException.class,
            "DICT_POLICY_SIZES is invalid ('ENTRIES_READX=10/1/60'): no DICT policy 'ENTRIES_READX' in the v1.2.0 "
                + "table; it has [ENTRIES_READ_USER_ANTISCAN, ENTRIES_READ_PARTICIPANT_ANTISCAN, ENTRIES_READ]"),
        row("DICT env: sizes without a period", () -> DictClientConfig.fromEnvironment(dictEnv(
            "DICT_POLICY_SIZES", "ENTRIES_READ=10/1")), IllegalArgumentException.class,
            "DICT_POLICY_SIZES is invalid ('ENTRIES_READ=10/1'): each item must be NAME=capacity/tokens/"
                + "periodSeconds, but one was 'ENTRIES_READ=10/1'"),
        row("DICT config: reserve share above 1", () -> new DictReserve(1.5, 1, 0, Duration.ofDays(1)),
            IllegalArgumentException.class, "reserve share must be within 0..1, but was 1.5"),
        row("DICT config: risky share below the share", () -> new DictReserve(0.5, 0.4, 0, Duration.ofDays(1)),
            IllegalArgumentException.class, "reserve riskyShare must be within share 0.5..1, but was 0.4"),
        row("DICT config: standing ttl of two years", () -> new DictReserve(0.5, 0.75, 3, Duration.ofDays(730)),
            IllegalArgumentException.class, "standingTtl must be at most 366 days, but was PT17520H"),
        row("DICT env: reserve not a number", () -> DictClientConfig.fromEnvironment(dictEnv("DICT_RESERVE",
            "half")), IllegalArgumentException.class, "DICT_RESERVE is invalid ('half'): not a number"),
        row("DICT env: reserve above 1", () -> DictClientConfig.fromEnvironment(dictEnv("DICT_RESERVE", "2")),
            IllegalArgumentException.class, "DICT_RESERVE is invalid: reserve share must be within 0..1, but was 2.0"),
        row("DICT env: risky reserve below the reserve", () -> DictClientConfig.fromEnvironment(dictEnv(
            "DICT_RISKY_RESERVE", "0.25")), IllegalArgumentException.class, "DICT_RISKY_RESERVE is invalid: reserve "
                + "riskyShare must be within share 0.5..1, but was 0.25"),
        row("DICT env: a fractional price", () -> DictClientConfig.fromEnvironment(dictEnv("DICT_STANDING_PRICE",
            "2.5")), IllegalArgumentException.class, "DICT_STANDING_PRICE is invalid ('2.5'): not a whole number"),
        row("DICT env: standing ttl 0", () -> DictClientConfig.fromEnvironment(dictEnv("DICT_STANDING_TTL_MS",
            "0")), IllegalArgumentException.class, "DICT_STANDING_TTL_MS is invalid: standingTtl must be > 0, but "
                + "was PT0S"),
        row("DICT env: Redis URL with a password, not echoed", () -> DictClientConfig.fromEnvironment(dictEnv(
            "REDIS_URL", "redis://:pw-secret@")), IllegalArgumentException.class, null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dictRows")
  void eachMalformedDictInputHasItsExactOutcome(String what, ThrowingCallable call, Class<? extends Throwable> type,
      String message) {
    var thrown = assertThatThrownBy(call).isExactlyInstanceOf(type);
    if (message != null) {
      thrown.hasMessage(message);
    } else {
      thrown.satisfies(e -> assertThat(e.getMessage()).startsWith("REDIS_URL is invalid").doesNotContain("pw-secret"));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void eachMalformedInputHasItsExactOutcome(String what, ThrowingCallable call, Class<? extends Throwable> type,
      String message) {
    var thrown = assertThatThrownBy(call).isExactlyInstanceOf(type);
    if (message != null) {
      thrown.hasMessage(message);
    }
  }

  static Stream<Arguments> retryAfterHeaders() {
    Instant now = Instant.parse("2026-11-30T12:00:00Z");
    return Stream.of(
        Arguments.of("1", now, Duration.ofSeconds(1)),
        Arguments.of(" 120 ", now, Duration.ofSeconds(120)),
        Arguments.of("0", now, Duration.ZERO),
        Arguments.of("Mon, 30 Nov 2026 12:00:03 GMT", now, Duration.ofSeconds(3)),
        Arguments.of("Mon, 30 Nov 2026 12:00:03 GMT", now.plusMillis(500), Duration.ofSeconds(3)), // 2.5 s -> 3
        Arguments.of("Mon, 30 Nov 2026 11:59:00 GMT", now, Duration.ZERO), // in the past
        Arguments.of("99999999999999999999", now, Duration.ofDays(1)), // huge: capped
        Arguments.of("604800", now, Duration.ofDays(1)),
        Arguments.of("-5", now, null), // negative: ignored
        Arguments.of("1.5", now, null),
        Arguments.of("soon", now, null),
        Arguments.of("", now, null),
        Arguments.of(null, now, null));
  }

  @ParameterizedTest(name = "Retry-After ''{0}''")
  @MethodSource("retryAfterHeaders")
  void retryAfterHeadersAreReadOrIgnored(String header, Instant now, Duration expected) {
    assertThat(RetryAfter.parse(header, now)).isEqualTo(expected);
  }

  static Stream<Arguments> quotaHeaders() {
    return Stream.of(
        Arguments.of(QuotaHeaders.IETF, "RateLimit", "\"pix\";r=ten;t=1"),
        Arguments.of(QuotaHeaders.IETF, "RateLimit", "\"pix\";r=-1;t=1"),
        Arguments.of(QuotaHeaders.IETF, "RateLimit", "\"pix\";r=1.5;t=1"),
        Arguments.of(QuotaHeaders.IETF, "RateLimit", "\"pix\";r=99999999999;t=1"),
        Arguments.of(QuotaHeaders.IETF, "RateLimit", "pix;r=0"),
        Arguments.of(QuotaHeaders.IETF, "RateLimit", "\"pix\";t=1"),
        Arguments.of(QuotaHeaders.IETF, "RateLimit", "\"pix\";r=0, <script>"),
        Arguments.of(QuotaHeaders.IETF, "RateLimit-Remaining", "-3"),
        Arguments.of(QuotaHeaders.X_RATELIMIT, "X-RateLimit-Remaining", "1e9"),
        Arguments.of(QuotaHeaders.X_RATELIMIT, "X-RateLimit-Remaining", "1000000001"),
        Arguments.of(QuotaHeaders.X_RATELIMIT, "X-RateLimit-Remaining", ""));
  }

  /** A provider's quota header that does not parse is counted and ignored: the bucket is not lowered by it. */
  @ParameterizedTest(name = "{1}: ''{2}''")
  @MethodSource("quotaHeaders")
  void malformedQuotaHeadersAreCountedAndIgnored(QuotaHeaders family, String header, String value) throws Exception {
    LocalTokenBucket bucket = local("q");
    io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    Throttle throttle = Throttle.builder(bucket).quotaHeaders(family).meterRegistry(registry).build();
    double before = bucket.charge(1e-9);
    throttle.exchange("GET", "/a", null, Answering.status(200, value == null ? Map.of() : Map.of(header, value)));
    assertThat(registry.get("bacen.throttle.quota.headers").tag("outcome", "ignored").counter().count())
        .isEqualTo(1);
    assertThat(bucket.charge(1e-9)).as("only the call's token taken").isGreaterThan(before - 1.01);
  }
}

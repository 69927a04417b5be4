package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Redis addresses as RFC 3986 reads them, row by row, before any I/O: user info percent-decoded and never shown,
 * forms that could only send a wrong AUTH refused, IPv6 literals, hosts no DNS would take. What each password
 * authenticates as is checked against real servers in {@link RedisAddressOnRealNodesTest}.
 */
public class RedisAddressTest {
  /** Secrets each bad address holds: none may appear in its message, through the builder or through REDIS_URL. */
  public static final List<String> SECRETS = List.of("Tr0ub4dor", "hunter2", "SECRETTAIL", "s3cr3t");

  static Stream<Arguments> good() {
    return Stream.of(
        Arguments.of("redis://:Tr0ub4dor/SECRETTAIL@r:6380/2", "redis://****@r:6380/2"),
        Arguments.of("redis://:Tr0ub4dor%2FSECRETTAIL@r:6380/2", "redis://****@r:6380/2"),
        Arguments.of("redis://app:hunter2%40x@r", "redis://****@r:6379"),
        Arguments.of("redis://[::1]", "redis://[::1]:6379"),
        Arguments.of("redis://[::1]:6380/1", "redis://[::1]:6380/1"),
        Arguments.of("redis-cluster://[fe80::1%25eth0]:7000,h2:7001", "redis-cluster://[fe80::1%25eth0]:7000,h2:7001"),
        Arguments.of("redis-sentinel://:s3cr3t@s1:26379,s2:26379/mymaster/3",
            "redis-sentinel://****@s1:26379,s2:26379/mymaster/3"),
        Arguments.of("redis://" + "a".repeat(63) + "." + "b".repeat(63) + ":1", "redis://" + "a".repeat(63) + "."
            + "b".repeat(63) + ":1"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("good")
  void readsAndShowsWithoutItsUserInfo(String url, String shown) {
    RedisAddress address = RedisAddress.parse(url);
    assertThat(address.toString()).isEqualTo(shown);
    for (String secret : SECRETS) {
      assertThat(address.toString()).doesNotContain(secret);
    }
  }

  public static Stream<Arguments> bad() {
    return Stream.of(
        Arguments.of("redis://@h", "redisUrl has an '@' with nothing before it: drop the '@', or write :password@ "
            + "before the host: 'redis://****@h'"),
        Arguments.of("redis://:@h", "redisUrl has an empty password: write user:password@ (or no user info at all): "
            + "'redis://****@h'"),
        Arguments.of("redis://hunter2@h", "redisUrl names a user but no password: write user:password@ (or "
            + ":password@ for the default user): 'redis://****@h'"),
        Arguments.of("redis://:Tr0ub4dor%zzSECRETTAIL@h", "redisUrl has a password with a '%' not followed by two "
            + "hex digits (write a '%' as %25): 'redis://****@h'"),
        Arguments.of("redis://:hunter2@h:99999", "redisUrl port must be within 1..65535, but was '99999': "
            + "'redis://****@h:99999'"),
        Arguments.of("redis://:Tr0ub4dor/SECRETTAIL@h/x2", "redisUrl database must be a whole number >= 0, but was "
            + "'x2': 'redis://****@h/x2'"),
        Arguments.of("redis://[::1", "redisUrl host must be a name, an IPv4 address or an IPv6 address in brackets, "
            + "but was '[::1': 'redis://[::1'"),
        Arguments.of("redis://[::1]x", "redisUrl host must be a name, an IPv4 address or an IPv6 address in "
            + "brackets, but was '[::1]': 'redis://[::1]x'"),
        Arguments.of("redis://" + "h".repeat(100_000), "redisUrl host must be a name of at most 253 characters, an "
            + "IPv4 address or an IPv6 address in brackets, but was '" + "h".repeat(64) + "... (100000 characters)': '"
            + ("redis://" + "h".repeat(100_000)).substring(0, 64) + "... (100008 characters)'"),
        Arguments.of("redis://bad_host!:6379", "redisUrl host must be a name of at most 253 characters, an IPv4 "
            + "address or an IPv6 address in brackets, but was 'bad_host!': 'redis://bad_host!:6379'"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("bad")
  void refusesNamingWhatIsWrongAndNeverShowsTheUserInfo(String url, String message) {
    assertThatThrownBy(() -> RedisAddress.parse(url)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }
}

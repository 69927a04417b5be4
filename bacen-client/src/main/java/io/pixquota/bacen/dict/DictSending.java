package io.pixquota.bacen.dict;

import io.pixquota.throttle.store.TokenBucket;
import java.io.IOException;
import okhttp3.Interceptor;
import okhttp3.Response;

/**
 * After the throttle's interceptor, at the moment a lookup's request leaves for DICT: the ledger counts its takes in
 * flight (what DICT's headers are read against) from here on, and never for a lookup that was not sent.
 */
final class DictSending implements Interceptor {
  @Override
  public Response intercept(Chain chain) throws IOException {
    if (chain.request().tag(TokenBucket.class) instanceof DictLookupBucket lookup) {
      lookup.sending();
    }
    return chain.proceed(chain.request());
  }
}

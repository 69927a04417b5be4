package io.pixquota.spring.autoconfigure;

import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixException;
import io.pixquota.throttle.BucketUnavailableException;
import io.pixquota.throttle.Throttle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;

/**
 * When the application is ready: {@link PixClient#warmUp()} (token fetched, script loaded), or, without a PixClient,
 * the interceptor's buckets preloaded, so that the first burst does not pay for either. A failure is logged, not
 * thrown: the application runs, its calls try again, and the health indicator shows what is wrong.
 */
final class PixQuotaWarmUp implements ApplicationListener<ApplicationReadyEvent> {
  private static final Logger LOG = LoggerFactory.getLogger(PixQuotaWarmUp.class);

  private final ObjectProvider<PixClient> client;
  private final Throttle throttle;

  PixQuotaWarmUp(ObjectProvider<PixClient> client, Throttle throttle) {
    this.client = client;
    this.throttle = throttle;
  }

  @Override
  public void onApplicationEvent(ApplicationReadyEvent event) {
    PixClient pix = client.getIfUnique();
    try {
      if (pix != null) {
        pix.warmUp();
      } else {
        throttle.preload();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (PixException | BucketUnavailableException e) {
      LOG.warn("pixquota: warm-up failed, the first calls will pay for it: {}", e.getMessage());
    }
  }
}

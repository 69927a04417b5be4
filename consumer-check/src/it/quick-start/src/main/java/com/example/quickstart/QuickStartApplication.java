package com.example.quickstart;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** Nothing but the starter: its PixClient bean, throttled by the quota application.yml declares. */
@SpringBootApplication
public class QuickStartApplication {
  public static void main(String[] args) {
    SpringApplication.run(QuickStartApplication.class, args);
  }
}

package com.example.pixstatus;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A service a person asks "did my PIX arrive?"; every question becomes one throttled call to API Pix. */
@SpringBootApplication
public class PixStatusApplication {
  public static void main(String[] args) {
    SpringApplication.run(PixStatusApplication.class, args);
  }
}

package com.example.dataredis;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A service on Spring Data Redis that checks PIX statuses through the shared quota, in the same Redis. */
@SpringBootApplication
public class DataRedisApplication {
  public static void main(String[] args) {
    SpringApplication.run(DataRedisApplication.class, args);
  }
}

package com.example.psp;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

@SpringBootApplication
public class PspApplication {
  public static void main(String[] args) {
    SpringApplication.run(PspApplication.class, args);
  }
}

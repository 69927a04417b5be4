package com.example.pixstatus;

import io.pixquota.bacen.pix.Pix;
import io.pixquota.bacen.pix.PixClient;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

@SpringBootApplication
@RestController
public class PixStatusApplication {
  private final PixClient pix; // the starter's, from application.yml: warmed up at start, closed at shutdown

  PixStatusApplication(PixClient pix) {
    this.pix = pix;
  }

  @GetMapping("/pix/{endToEndId}") // "did my PIX arrive?"
  Pix status(@PathVariable String endToEndId) {
    return pix.getPix(endToEndId); // waits for its slot in the shared bucket, then calls the provider
  }

  public static void main(String[] args) {
    SpringApplication.run(PixStatusApplication.class, args);
  }
}

package io.pgharvest;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** Entry point of the pgharvest collector. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class PgharvestApplication {

    public static void main(String[] args) {
        SpringApplication.run(PgharvestApplication.class, args);
    }
}

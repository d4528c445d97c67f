package floor;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** Nothing but the stack: what an empty application on pgharvest's starters costs (README.md). */
@SpringBootApplication
public class FloorApplication {

    public static void main(String[] args) {
        SpringApplication.run(FloorApplication.class, args);
    }
}

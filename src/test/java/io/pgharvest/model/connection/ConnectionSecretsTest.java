package io.pgharvest.model.connection;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class ConnectionSecretsTest {

    @Test
    void keyValueTextLosesPasswordAndSslpasswordAndKeepsEverythingElseInOrder() {
        assertThat(ConnectionSecrets.masked("user=replicator password='s3 cr\\'et' host=/var/run/postgresql"
                + " sslpassword=k application_name=standby_a"))
                .isEqualTo("user=replicator password=******** host=/var/run/postgresql sslpassword=********"
                        + " application_name=standby_a");
    }

    @Test
    void uriTextLosesThePasswordOfItsUserInformationAndOfItsQuery() {
        assertThat(ConnectionSecrets.masked("postgresql://rep:se%40cret@db1:5432,[::1]:5433/app?sslpassword=x&sslmode=require"))
                .isEqualTo("postgresql://rep:********@db1:5432,[::1]:5433/app?sslpassword=********&sslmode=require");
        assertThat(ConnectionSecrets.masked("postgres://h/db?password=secret"))
                .isEqualTo("postgres://:********@h/db");
    }

    @Test
    void textWithoutSecretsStaysAsTheServerShowsItAndBlankStaysBlank() {
        assertThat(ConnectionSecrets.masked("host=a  port=5432 user=x")).isEqualTo("host=a  port=5432 user=x");
        assertThat(ConnectionSecrets.masked("")).isEmpty();
    }

    @Test
    void connectionTextThatDoesNotParseIsMaskedWhole() {
        assertThat(ConnectionSecrets.masked("host=a password='unterminated")).isEqualTo(ConnectionString.MASK);
        assertThat(ConnectionSecrets.masked("mysql://root:pw@h")).isEqualTo(ConnectionString.MASK);
    }

    @Test
    void anyTextIsParsedOnlyWhenItMayHoldASecret() {
        assertThat(ConnectionSecrets.maskedIfConnection("cp %p /archive/%f")).isEqualTo("cp %p /archive/%f");
        assertThat(ConnectionSecrets.maskedIfConnection("dbname=x PassWord=y")).isEqualTo("dbname=x PassWord=y")
                .as("libpq keywords are case-sensitive: PassWord is not one");
        assertThat(ConnectionSecrets.maskedIfConnection("host=h password=y")).isEqualTo("host=h password=********");
        assertThat(ConnectionSecrets.maskedIfConnection("the password policy")).isEqualTo("the password policy");
        assertThat(ConnectionSecrets.maskedIfConnection("run with --dsn postgresql://u:pw@h/db"))
                .isEqualTo("run with --dsn postgresql://u:********@h/db");
    }
}

package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"time"
)

// ParsePrivateKey parses a PEM-encoded private key (PKCS #8, SEC 1 "EC
// PRIVATE KEY" or PKCS #1 "RSA PRIVATE KEY") for [Transport.PrivateKey].
// Only ECDSA P-256 keys (ES256) and RSA keys (RS256) are accepted.
func ParsePrivateKey(pemData []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(pemData)
	if block == nil {
		return nil, errors.New("oauth: no PEM block in private key")
	}
	var key any
	var err error
	switch block.Type {
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, fmt.Errorf("oauth: parsing %s: %w", block.Type, err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("oauth: a %T cannot sign", key)
	}
	if _, err := signingAlgorithm(signer); err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	return signer, nil
}

// signingAlgorithm names the JWS algorithm for key: ES256 or RS256.
func signingAlgorithm(key crypto.Signer) (string, error) {
	switch k := key.Public().(type) {
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return "", fmt.Errorf("ECDSA key on %s, only P-256 (ES256) is supported", k.Curve.Params().Name)
		}
		return "ES256", nil
	case *rsa.PublicKey:
		return "RS256", nil
	}
	return "", fmt.Errorf("%T keys are not supported (ES256 or RS256 only)", key.Public())
}

// assertionLifetime is how long a client assertion is valid.
const assertionLifetime = 5 * time.Minute

// clientAssertion signs a JWT that authenticates clientID to the
// authorization server audience (RFC 7523 section 3): iss and sub are the
// client id, aud the server's issuer, with a fresh jti.
func (t *Transport) clientAssertion(clientID, audience string) (string, error) {
	if t.PrivateKey == nil {
		return "", errors.New("private_key_jwt needs Transport.PrivateKey")
	}
	alg, err := signingAlgorithm(t.PrivateKey)
	if err != nil {
		return "", err
	}
	jti, err := randomString(16)
	if err != nil {
		return "", err
	}
	now := t.now()
	header, err := json.Marshal(map[string]string{"alg": alg, "typ": "JWT"})
	if err != nil {
		return "", fmt.Errorf("encoding JWT header: %w", err)
	}
	claims, err := json.Marshal(map[string]any{
		"iss": clientID,
		"sub": clientID,
		"aud": audience,
		"jti": jti,
		"iat": now.Unix(),
		"exp": now.Add(assertionLifetime).Unix(),
	})
	if err != nil {
		return "", fmt.Errorf("encoding JWT claims: %w", err)
	}
	signingInput := base64URL.EncodeToString(header) + "." + base64URL.EncodeToString(claims)
	digest := sha256.Sum256([]byte(signingInput))
	sig, err := t.PrivateKey.Sign(rand.Reader, digest[:], crypto.SHA256)
	if err != nil {
		return "", fmt.Errorf("signing client assertion: %w", err)
	}
	if alg == "ES256" {
		if sig, err = rawECDSA(sig); err != nil {
			return "", err
		}
	}
	return signingInput + "." + base64URL.EncodeToString(sig), nil
}

// rawECDSA converts an ASN.1 ECDSA P-256 signature, as crypto.Signer
// returns it, into the 64-byte r||s form JWS uses (RFC 7518 section 3.4).
func rawECDSA(der []byte) ([]byte, error) {
	var sig struct{ R, S *big.Int }
	if _, err := asn1.Unmarshal(der, &sig); err != nil {
		return nil, fmt.Errorf("decoding ECDSA signature: %w", err)
	}
	if sig.R == nil || sig.S == nil || sig.R.Sign() < 0 || sig.S.Sign() < 0 || sig.R.BitLen() > 256 || sig.S.BitLen() > 256 {
		return nil, errors.New("ECDSA signature is not a P-256 signature")
	}
	out := make([]byte, 64)
	sig.R.FillBytes(out[:32])
	sig.S.FillBytes(out[32:])
	return out, nil
}

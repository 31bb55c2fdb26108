"""Token counting: tiktoken's encoder, a pure byte-pair encoder for a few texts, and the
count cache kept between runs."""
